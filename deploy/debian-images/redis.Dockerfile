# Stands in for redis:7.2: Debian's Redis (7.0 in bookworm), working in /data, reachable from other
# containers without a password as the public image is (its build turns protected mode off).
ARG BASE=stich-debian/base:bookworm
FROM ${BASE}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* && mkdir -p /data
COPY redis-server /usr/local/bin/redis-server
WORKDIR /data
VOLUME /data
EXPOSE 6379
CMD ["redis-server"]
