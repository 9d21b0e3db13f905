#!/usr/bin/env bash
# Makes sure what the build and tests need is installed: a JDK (17+), Maven, etcd
# (Debian package etcd-server), MariaDB (Debian package mariadb-server: mariadbd,
# mariadb-install-db, and the mariadb client it pulls in), openssl (the TLS ITs make their
# certificates with it), PostgreSQL (Debian package postgresql: postgres, initdb and
# pg_basebackup in /usr/lib/postgresql/<major>/bin, or in PG_BIN), PgBouncer (Debian package
# pgbouncer, or PGBOUNCER_BIN), and for the reliability tests libfaketime (Debian packages
# faketime and libfaketime) and Galera (Debian package galera-4). Installs what is missing when
# it can (root with apt-get), otherwise stops with a message naming what to install.
set -euo pipefail

missing_pkgs=()

need() { # need <command> <debian-package>
  if ! command -v "$1" >/dev/null 2>&1; then
    missing_pkgs+=("$2")
  fi
}

need java openjdk-17-jdk-headless
need javac openjdk-17-jdk-headless
need mvn maven
need openssl openssl
if [ -z "${ETCD_BIN:-}" ]; then
  need etcd etcd-server
fi
# mariadbd lives in /usr/sbin, which a non-root PATH may lack; the launcher looks there too.
if [ -z "${MARIADBD_BIN:-}" ] && ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
  missing_pkgs+=(mariadb-server)
fi
if [ -z "${MARIADB_INSTALL_DB_BIN:-}" ]; then
  need mariadb-install-db mariadb-server
fi
# The PostgreSQL launcher runs postgres, initdb and pg_basebackup from PG_BIN, else from
# /usr/lib/postgresql/15/bin, else from the newest /usr/lib/postgresql/<major>/bin: Debian keeps
# the server binaries off PATH. An explicit PG_BIN is checked below, not silently replaced.
find_pg_bin() {
  local dir
  for dir in /usr/lib/postgresql/15/bin $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_basebackup" ]; then
      echo "$dir"
      return
    fi
  done
}
if [ -z "${PG_BIN:-}" ] && [ -z "$(find_pg_bin)" ]; then
  missing_pkgs+=(postgresql)
fi
# pgbouncer lives in /usr/sbin, which a non-root PATH may lack; the launcher looks there too.
if [ -z "${PGBOUNCER_BIN:-}" ] && ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  missing_pkgs+=(pgbouncer)
fi
# Clock faults: the faketime command and its preload library (another package on Debian).
need faketime faketime
have_libfaketime=no
for lib in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
  if [ -e "$lib" ]; then
    have_libfaketime=yes
  fi
done
if [ "$have_libfaketime" = no ]; then
  missing_pkgs+=(libfaketime)
fi
# Galera's provider library, for the tests that check a Galera node is refused; the MariaDB
# launcher looks where these packages put it, or takes MARIADB_GALERA_PROVIDER.
if [ -z "${MARIADB_GALERA_PROVIDER:-}" ] && [ ! -e /usr/lib/galera/libgalera_smm.so ] \
    && [ ! -e /usr/lib/galera-4/libgalera_smm.so ] && [ ! -e /usr/lib64/galera-4/libgalera_smm.so ]; then
  missing_pkgs+=(galera-4)
fi
# The benchmark (and its smoke test) draws PNG plots, which needs one font.
if [ ! -d /usr/share/fonts/truetype/dejavu ]; then
  missing_pkgs+=(fonts-dejavu-core)
fi

if [ ${#missing_pkgs[@]} -gt 0 ]; then
  # de-duplicate
  pkgs=$(printf '%s\n' "${missing_pkgs[@]}" | sort -u | tr '\n' ' ')
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[leasehold] installing: $pkgs" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $pkgs >/dev/null
  else
    echo "[leasehold] missing: $pkgs" >&2
    echo "[leasehold] install them first, e.g.: sudo apt-get update && sudo apt-get install -y $pkgs" >&2
    exit 1
  fi
fi

java_major=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
if [ -z "$java_major" ] || [ "${java_major%%.*}" -lt 17 ]; then
  echo "[leasehold] Java 17 or newer is required (found: ${java_major:-unknown}); install openjdk-17-jdk-headless" >&2
  exit 1
fi

# must_run <binary> <debian-package> <variable>: stops unless the binary answers --version.
must_run() {
  if ! "$1" --version >/dev/null 2>&1; then
    echo "[leasehold] $1 does not run; install the Debian package $2 or set $3" >&2
    exit 1
  fi
}

must_run "${ETCD_BIN:-$(command -v etcd)}" etcd-server ETCD_BIN
must_run "${MARIADBD_BIN:-$(command -v mariadbd || echo /usr/sbin/mariadbd)}" mariadb-server MARIADBD_BIN

if [ -n "${PG_BIN:-}" ]; then
  for tool in postgres initdb pg_basebackup; do
    if [ ! -x "$PG_BIN/$tool" ]; then
      echo "[leasehold] PG_BIN=$PG_BIN has no executable $tool; set PG_BIN to the directory that holds postgres, initdb and pg_basebackup, or unset it and install the Debian package postgresql" >&2
      exit 1
    fi
  done
  must_run "$PG_BIN/postgres" postgresql PG_BIN
else
  must_run "$(find_pg_bin)/postgres" postgresql PG_BIN
fi
must_run "${PGBOUNCER_BIN:-$(command -v pgbouncer || echo /usr/sbin/pgbouncer)}" pgbouncer PGBOUNCER_BIN
