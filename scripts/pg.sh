#!/usr/bin/env bash
# pg.sh [start|stop|status|dsn] — a throwaway PostgreSQL cluster for LexSona's tests and benchmarks.
#
#   start (default)  installs Debian's postgresql when no initdb is found (apt-get, as root or via sudo),
#                    creates the cluster on first use, starts it when it is not running, creates the
#                    database and prints its URL on stdout (nothing else goes to stdout):
#                      postgres://postgres@127.0.0.1:PORT/lexsona?sslmode=disable
#                    Running it again while the cluster runs only prints the URL.
#   stop             stops the cluster (its files stay; `start` brings it back).
#   status           exit 0 when it runs, 3 when it does not.
#   dsn              prints the URL without starting anything.
#
# The cluster is the repository's own: its data folder is <repo>/.cache/pg/data, its unix socket in
# <repo>/.cache/pg/run, its log <repo>/.cache/pg/postgres.log. It listens on 127.0.0.1 only, on port
# 55432 (or LEXSONA_PG_PORT; the next free port when that one is taken by another server, remembered
# in the data folder), and trusts every local connection: never use it for real data.
#
# As root the server runs as the postgres user (initdb refuses root): the folder is chowned to it.
# When the postgres user cannot reach <repo>/.cache/pg (a repository under a private home folder),
# the cluster lives in /var/tmp/lexsona-pg-<hash of the repository path> instead; .cache/pg/location
# names it. As another user the server runs as that user.
#
# Env: LEXSONA_PG_PORT (first port tried, default 55432), LEXSONA_PG_DB (database, default lexsona),
#      LEXSONA_PG_ROOT (cluster folder, default as above).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMD="${1:-start}"
FIRST_PORT="${LEXSONA_PG_PORT:-55432}"
DB="${LEXSONA_PG_DB:-lexsona}"
SUPERUSER=postgres

log() { echo "pg.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

case "$CMD" in
start | stop | status | dsn) ;;
*) die "unknown command $CMD: want start, stop, status or dsn" ;;
esac

# find_bin: the folder of the newest installed PostgreSQL's initdb and pg_ctl, or nothing.
find_bin() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [[ -x "$d/initdb" && -x "$d/pg_ctl" ]]; then
			echo "$d"
			return
		fi
	done
	if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
		dirname "$(command -v initdb)"
	fi
}

install_pg() {
	command -v apt-get >/dev/null || die "PostgreSQL is not installed and this is not a Debian/Ubuntu system: install PostgreSQL (initdb, pg_ctl) and run again"
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null || die "PostgreSQL is not installed: run this script as root once, or apt-get install postgresql"
		sudo=(sudo)
	fi
	log "installing Debian's postgresql (apt-get)"
	"${sudo[@]}" apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq postgresql >&2
}

BIN="$(find_bin)"
if [[ -z "$BIN" ]]; then
	[[ "$CMD" == start ]] || die "PostgreSQL is not installed (run: $0 start)"
	install_pg
	BIN="$(find_bin)"
	[[ -n "$BIN" ]] || die "apt-get installed postgresql but no initdb/pg_ctl was found under /usr/lib/postgresql"
fi

# The OS user the server runs as, and how to run a command as that user.
if [[ $(id -u) -eq 0 ]]; then
	RUNAS=postgres
	id "$RUNAS" >/dev/null 2>&1 || die "running as root, but there is no postgres user to run the server as"
	as_server() { runuser -u "$RUNAS" -- "$@"; }
else
	RUNAS="$(id -un)"
	as_server() { "$@"; }
fi

# The cluster folder: <repo>/.cache/pg when the server's user can write it, else a folder in /var/tmp.
choose_root() {
	if [[ -n "${LEXSONA_PG_ROOT:-}" ]]; then
		echo "$LEXSONA_PG_ROOT"
		return
	fi
	local want="$REPO/.cache/pg"
	if [[ -f "$want/location" ]]; then
		cat "$want/location"
		return
	fi
	mkdir -p "$want"
	if [[ $(id -u) -eq 0 ]]; then
		chown "$RUNAS:" "$want"
		chmod 0700 "$want"
	fi
	if as_server test -w "$want" -a -x "$want"; then
		echo "$want"
		return
	fi
	local alt
	alt="/var/tmp/lexsona-pg-$(printf '%s' "$REPO" | sha256sum | cut -c1-12)"
	log "the $RUNAS user cannot reach $want (a parent folder is private): the cluster lives in $alt"
	echo "$alt" >"$want/location"
	echo "$alt"
}

ROOT="$(choose_root)"
DATA="$ROOT/data"
RUN="$ROOT/run"
LOGFILE="$ROOT/postgres.log"
PG_CTL=("$BIN/pg_ctl" -D "$DATA")

running() { [[ -f "$DATA/PG_VERSION" ]] && as_server "${PG_CTL[@]}" status >/dev/null 2>&1; }

# port: the port in the cluster's configuration.
port() { sed -n "s/^port = \([0-9]*\).*/\1/p" "$DATA/postgresql.auto.conf" 2>/dev/null | tail -1; }

url() { echo "postgres://$SUPERUSER@127.0.0.1:$(port)/$DB?sslmode=disable"; }

port_free() { ! (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# psql_admin SQL: runs SQL in the maintenance database over the cluster's socket.
psql_admin() { as_server "$BIN/psql" -X -q -h "$RUN" -p "$(port)" -U "$SUPERUSER" -d postgres -v ON_ERROR_STOP=1 -tA -c "$1"; }

init_cluster() {
	mkdir -p "$ROOT"
	if [[ $(id -u) -eq 0 ]]; then chown "$RUNAS:" "$ROOT"; fi
	chmod 0700 "$ROOT"
	as_server mkdir -p "$RUN"
	log "creating a throwaway cluster in $DATA"
	as_server "$BIN/initdb" -D "$DATA" -U "$SUPERUSER" --auth-local=trust --auth-host=trust \
		--encoding=UTF8 --locale=C.UTF-8 >"$ROOT/initdb.log" 2>&1 ||
		as_server "$BIN/initdb" -D "$DATA" -U "$SUPERUSER" --auth-local=trust --auth-host=trust \
			--encoding=UTF8 --locale=C >"$ROOT/initdb.log" 2>&1 ||
		die "initdb failed: see $ROOT/initdb.log"
	local p="$FIRST_PORT"
	while ! port_free "$p"; do
		p=$((p + 1))
		((p < FIRST_PORT + 100)) || die "no free port in $FIRST_PORT..$((FIRST_PORT + 99))"
	done
	[[ "$p" == "$FIRST_PORT" ]] || log "port $FIRST_PORT is taken: using $p"
	# A short socket folder is needed (unix socket paths are limited to 107 bytes).
	local sock="$RUN"
	if ((${#sock} > 80)); then
		sock=""
		log "$RUN is too long for a unix socket: the cluster listens on TCP only"
	fi
	as_server tee -a "$DATA/postgresql.auto.conf" >/dev/null <<EOF
port = $p
listen_addresses = '127.0.0.1'
unix_socket_directories = '$sock'
max_connections = 300
shared_buffers = 128MB
logging_collector = off
EOF
}

case "$CMD" in
dsn)
	[[ -f "$DATA/PG_VERSION" ]] || die "no cluster in $DATA yet (run: $0 start)"
	url
	exit 0
	;;
status)
	if running; then
		log "running: $(url) (data $DATA)"
		exit 0
	fi
	log "not running (data $DATA)"
	exit 3
	;;
stop)
	if running; then
		as_server "${PG_CTL[@]}" stop -m fast -w >&2
	else
		log "not running"
	fi
	exit 0
	;;
esac

[[ -f "$DATA/PG_VERSION" ]] || init_cluster
if ! running; then
	p="$(port)"
	port_free "$p" || die "port $p is taken by another server: stop it, or delete $ROOT and set LEXSONA_PG_PORT to a free port"
	as_server "${PG_CTL[@]}" start -w -t 60 -l "$LOGFILE" >&2 || die "the server did not start: see $LOGFILE"
fi
HOSTOPT=("$RUN")
if [[ -z "$(sed -n "s/^unix_socket_directories = '\(.*\)'/\1/p" "$DATA/postgresql.auto.conf" | tail -1)" ]]; then
	HOSTOPT=(127.0.0.1)
fi
RUN="${HOSTOPT[0]}"
if [[ "$(psql_admin "SELECT count(*) FROM pg_database WHERE datname = '$DB'")" != 1 ]]; then
	psql_admin "CREATE DATABASE \"$DB\"" >/dev/null
	log "created database $DB"
fi
url
