# One image for the API and the bot workers (docker-compose.yml picks the command).
# The base is a build argument (docker-compose.yml's STICH_PYTHON_IMAGE): the public image by default.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}
WORKDIR /app
COPY pyproject.toml README.md openapi.yaml asyncapi.yaml ./
COPY api ./api
COPY domain ./domain
COPY eventstore ./eventstore
COPY workers ./workers
COPY stich ./stich
# The postgres extra: under Compose every process shares one history database (PostgreSQL).
RUN pip install --no-cache-dir '.[postgres]'
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
# The HTTP API only (gevent workers, as `stich serve` runs them); the compose file runs bot workers apart.
CMD ["stich", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "0"]
