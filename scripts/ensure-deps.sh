#!/usr/bin/env bash
# Makes sure what the build and tests need is installed: a JDK (17+), Maven, etcd
# (Debian package etcd-server), MariaDB (Debian package mariadb-server: mariadbd,
# mariadb-install-db, and the mariadb client it pulls in) and openssl (the TLS ITs make their
# certificates with it). Installs what is missing when it can (root with apt-get), otherwise
# stops with a message naming what to install.
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

etcd_bin=${ETCD_BIN:-$(command -v etcd)}
if ! "$etcd_bin" --version >/dev/null 2>&1; then
  echo "[leasehold] $etcd_bin does not run; install the Debian package etcd-server or set ETCD_BIN" >&2
  exit 1
fi

mariadbd_bin=${MARIADBD_BIN:-$(command -v mariadbd || echo /usr/sbin/mariadbd)}
if ! "$mariadbd_bin" --version >/dev/null 2>&1; then
  echo "[leasehold] $mariadbd_bin does not run; install the Debian package mariadb-server or set MARIADBD_BIN" >&2
  exit 1
fi
