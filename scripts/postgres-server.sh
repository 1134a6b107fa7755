#!/usr/bin/env bash
# Starts Debian's PostgreSQL for the `postgres` engine tests (tests/engines/postgres-server.test.ts)
# and prints the URL to use as SQL_VERDICT_DATABASE_URL. Installs the server when it is missing
# (CI runs as root on a fresh machine). Idempotent: a running cluster and existing roles are kept.
#
# What it sets up (docs/postgres.md): a login role sql_verdict that owns the database sql_verdict
# (it creates each run's scratch schema), the SELECT-only role sql_verdict_reader every query runs
# as, and EXECUTE revoked from PUBLIC in that database on the functions the sandbox denies.
set -euo pipefail

if ! command -v pg_lsclusters >/dev/null 2>&1; then
  echo "Installing Debian's postgresql for the server engine tests..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi

read -r version cluster port status _ < <(pg_lsclusters --no-header | head -n 1)
if [ "$status" != "online" ]; then
  pg_ctlcluster "$version" "$cluster" start >&2
fi

psql_admin() { su postgres -c "psql -v ON_ERROR_STOP=1 -q -X -p $port $*"; }

psql_admin "-d postgres" >/dev/null <<'SQL'
SET client_min_messages = warning;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sql_verdict_reader') THEN
    CREATE ROLE sql_verdict_reader NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sql_verdict') THEN
    CREATE ROLE sql_verdict LOGIN PASSWORD 'sql_verdict' NOSUPERUSER NOCREATEDB NOCREATEROLE;
  END IF;
END $$;
GRANT sql_verdict_reader TO sql_verdict;
SQL
if ! psql_admin "-d postgres -tAc \"SELECT 1 FROM pg_database WHERE datname = 'sql_verdict'\"" | grep -q 1; then
  psql_admin "-d postgres -c 'CREATE DATABASE sql_verdict OWNER sql_verdict'" >/dev/null
fi
# The same families as DENIED_FUNCTIONS in src/engines/pglite/session.ts.
psql_admin "-d sql_verdict" >/dev/null <<'SQL'
DO $$ DECLARE f record; BEGIN
  FOR f IN SELECT p.oid::regprocedure AS sig FROM pg_proc p WHERE p.proname ~ '^(set_config|pg_sleep(_for|_until)?|pg_advisory_.*|pg_try_advisory_.*|lo_.*|loread|lowrite|pg_read_file|pg_read_binary_file|pg_ls_.*|pg_stat_file|pg_file_.*|dblink.*|pg_notify|pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_promote|query_to_xml.*|cursor_to_xml.*|table_to_xml.*|schema_to_xml.*|database_to_xml.*|nextval|setval|currval|lastval|txid_current(_if_assigned)?|pg_current_xact_id(_if_assigned)?|pg_export_snapshot|pg_log_backend_memory_contexts|pg_logical_emit_message|pg_create_restore_point|pg_switch_wal|pg_backup_start|pg_backup_stop|pg_replication_origin_.*|pg_create_physical_replication_slot|pg_create_logical_replication_slot|pg_drop_replication_slot|ts_stat|pg_postmaster_start_time|pg_conf_load_time)$'
  LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f.sig); END LOOP;
END $$;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pg_listening_channels() TO PUBLIC;
SQL
echo "postgresql://sql_verdict:sql_verdict@127.0.0.1:${port}/sql_verdict"
