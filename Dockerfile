# One image for the API and the bot workers (docker-compose.yml picks the command).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md openapi.yaml ./
COPY api ./api
COPY domain ./domain
COPY eventstore ./eventstore
COPY workers ./workers
COPY stich ./stich
RUN pip install --no-cache-dir .
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
# The HTTP API only (gevent workers, as `stich serve` runs them); the compose file runs bot workers apart.
CMD ["stich", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "0"]
