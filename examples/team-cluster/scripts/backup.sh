#!/usr/bin/env bash
# Backs up the cluster's database (keys, usage, the cache) with pg_dump's custom format, from the compose
# project's postgres service, into ./backups/pro-context-<UTC time>.dump; keeps the newest KEEP (default 14).
#   scripts/backup.sh            # e.g. daily from cron: 15 3 * * * cd /srv/pro-context-cluster && scripts/backup.sh
#   scripts/backup.sh --keys-only   # API keys and usage only (small; the cache can be fetched again)
# Restore (stop the replicas first: docker compose stop replica1 replica2 replica3):
#   docker compose exec -T postgres pg_restore -U pro_context -d pro_context --clean --if-exists < backups/FILE.dump
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p backups
stamp=$(date -u +%Y%m%dT%H%M%SZ)
tables=()
if [ "${1:-}" = "--keys-only" ]; then
  tables=(-t 'pro_context.api_keys' -t 'pro_context.usage' -t 'pro_context.schema_versions')
  stamp="$stamp-keys"
fi
file="backups/pro-context-$stamp.dump"
docker compose exec -T postgres pg_dump -U pro_context -d pro_context -Fc "${tables[@]}" > "$file.partial"
mv "$file.partial" "$file"
echo "backup: $file ($(du -h "$file" | cut -f1))"
ls -1t backups/pro-context-*.dump | tail -n +"$(( ${KEEP:-14} + 1 ))" | xargs -r rm --
