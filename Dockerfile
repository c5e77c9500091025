# Crazy Eights for Discord. Build: docker build -t crazy-eights .
# Run: docker run -d --name eights --env-file .env -v eights-data:/data crazy-eights
# No secret is baked in: DISCORD_TOKEN comes from --env-file (or -e) when the container starts.
# Prometheus metrics (optional): add -e METRICS_PORT=9108 -e METRICS_ADDRESS=0.0.0.0 -p 127.0.0.1:9108:9108
# (inside a container 127.0.0.1 is the container's own loopback: listen on all of its addresses, and publish
# the port to the host's loopback only, or let a Prometheus container reach it on a Docker network).

# --- build stage: a virtual environment with the dependencies -------------------------------------------
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# Dependencies in their own layer, rebuilt only when pyproject.toml or uv.lock changes. uv.lock pins every
# package and the hash of every file: two builds of one commit install the same packages. uv (the version
# pinned in pyproject.toml's dev extra, which made the lock) is removed again; --locked fails the build
# when the lock no longer matches pyproject.toml (run `uv lock`), and pip checks every download against the
# lock's hashes.
COPY pyproject.toml uv.lock ./
RUN pip install "uv==0.13.9" \
    && uv export --locked --no-dev --no-emit-project --format requirements-txt \
        --output-file requirements.txt --quiet \
    && pip install --require-hashes --no-deps -r requirements.txt \
    && pip uninstall --yes uv
# The code, and the migrations beside it (the store finds them at ../migrations from bot/).
COPY bot/ bot/
COPY migrations/ migrations/
RUN python -m compileall -q bot

# --- runtime stage: no compiler, no pip cache, not root ---------------------------------------------------
FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DATABASE_URL=sqlite:////data/eights.sqlite3
RUN groupadd --system --gid 10001 eights \
    && useradd --system --uid 10001 --gid eights --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin eights \
    && mkdir -p /data \
    && chown 10001:10001 /data
COPY --from=build /opt/venv /opt/venv
COPY --from=build /src/bot /app/bot
COPY --from=build /src/migrations /app/migrations
# From /, the default DATABASE_URL (sqlite:///data/eights.sqlite3, relative) is the same file in the volume, so
# an .env copied from .env.example works unchanged.
WORKDIR /
# Numeric, so that Kubernetes' runAsNonRoot can check it is not root (a name would need /etc/passwd).
USER 10001:10001
# The database lives here: mount a volume to keep it across containers and upgrades.
VOLUME ["/data"]
# Healthy while the running bot writes its heartbeat (every 20 s) into the database.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["python", "-m", "bot", "health"]
# SIGTERM (docker stop) shuts the bot down cleanly within Docker's 10 s grace period.
STOPSIGNAL SIGTERM
ENTRYPOINT ["python", "-m", "bot"]
CMD ["run"]
