# noughts serve in a container: the page, the move API, /healthz, /readyz and /metrics on
# port 8000. Build: docker build -t noughts .   Run: docker run -p 8000:8000 noughts
# (docs/deployment.md; tests/test_dockerfile.py runs these RUN and CMD lines in a venv).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir ".[redis,metrics]"

# not root: a numeric user that owns nothing in the image
USER 10001:10001
ENV NOUGHTS_HOST=0.0.0.0 \
    NOUGHTS_PORT=8000 \
    NOUGHTS_ACCESS_LOG=json \
    NOUGHTS_DRAIN_S=8
EXPOSE 8000
# SIGTERM drains (readiness off, the socket closed, accepted requests answered) within
# NOUGHTS_DRAIN_S, under the 10 s docker stop gives before SIGKILL
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen(f\"http://127.0.0.1:{os.environ['NOUGHTS_PORT']}/healthz\", timeout=2)"]
CMD ["noughts", "serve"]
