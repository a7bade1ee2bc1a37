# Stands in for python:3.11-slim: Debian's Python 3.11 with pip, `python` on the PATH, and pip allowed to
# install into the system (the public image's pip installs into /usr/local as this one then does).
ARG BASE=stich-debian/base:bookworm
FROM ${BASE}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 python3-pip python-is-python3 ca-certificates \
    && rm -rf /var/lib/apt/lists/* && rm -f /usr/lib/python3*/EXTERNALLY-MANAGED
# The build machine's trusted certificates: pip then reaches PyPI through whatever proxy the machine does.
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
