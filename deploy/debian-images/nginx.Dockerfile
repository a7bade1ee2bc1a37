# Stands in for nginx:1.28-alpine: Debian's nginx from unstable (deploy/nginx/compose.conf's
# `server api:8000 resolve` needs 1.27.3 or newer; bookworm has 1.22), with wget for the healthcheck
# and only the sites of conf.d, as the public image serves.
ARG BASE=stich-debian/base:sid
FROM ${BASE}
# The mirror may be a dated copy, whose unstable Release file has passed its Valid-Until.
RUN apt-get -o Acquire::Check-Valid-Until=false update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx wget \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/* \
    && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 8000
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
