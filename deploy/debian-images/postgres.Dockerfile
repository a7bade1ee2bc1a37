# Stands in for postgres:16: Debian's PostgreSQL (15 in bookworm), made at first start with
# POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB in /var/lib/postgresql/data, as the public image does.
ARG BASE=stich-debian/base:bookworm
FROM ${BASE}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql \
    && rm -rf /var/lib/apt/lists/* && pg_dropcluster 15 main \
    && mkdir -p /var/run/postgresql && chown postgres:postgres /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint /usr/local/bin/postgres-entrypoint
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
CMD ["postgres-entrypoint"]
