#!/usr/bin/env bash
# `meson install` puts the binary, its man page, the systemd unit (ExecStart at the
# installed binary), logrotate's snippet and deploy/ where the README says, for the
# build's prefix and for --prefix=/usr; `agent --version` is git's version of the
# tree (the project's outside a clone); the man page is clean and documents every
# option of `agent --help`.
source "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$(dirname "$AGENT")/../.." && pwd)
MAN=$SRC/docs/agent.1
opt() {	# opt BUILDDIR NAME: a meson option's value
	meson introspect "$1" --buildoptions |
		python3 -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]][0])' "$2"
}
PROJVER=$(meson introspect "$BUILD" --projectinfo | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')

# 1. The build's own prefix (tools/build.sh: /usr/local), staged with --destdir.
PREFIX=$(opt "$BUILD" prefix)
meson install -C "$BUILD" --destdir "$TMP/root" >"$TMP/install" 2>&1
expect "meson install -C build --destdir" [ $? = 0 ] || tail -5 "$TMP/install"
R=$TMP/root
for f in "$PREFIX/bin/agent" "$PREFIX/share/man/man1/agent.1" "$PREFIX/lib/systemd/system/agent.service" \
	/etc/logrotate.d/agent "$PREFIX/share/agent/README.md"; do
	expect "installed: $f" [ -s "$R$f" ]
done
deploy_copied() {	# every other file of deploy/ under share/agent, as it is
	local f bad=
	for f in $(cd "$SRC/deploy" && find . -type f ! -name agent.service); do
		cmp -s "$SRC/deploy/$f" "$R$PREFIX/share/agent/$f" || bad="$bad $f"
	done
	[ -z "$bad" ] || { echo "    not installed:$bad"; return 1; }
}
expect "installed: deploy/'s other files under $PREFIX/share/agent" deploy_copied
expect "the installed binary is executable" [ -x "$R$PREFIX/bin/agent" ]
expect "the installed unit starts $PREFIX/bin/agent" \
	grep -q "^ExecStart=$PREFIX/bin/agent -j " "$R$PREFIX/lib/systemd/system/agent.service"
same_but_execstart() { diff <(grep -v ^ExecStart= "$SRC/deploy/agent.service") \
	<(grep -v ^ExecStart= "$R$PREFIX/lib/systemd/system/agent.service"); }
expect "... and is deploy/agent.service otherwise" same_but_execstart
expect "logrotate's snippet is deploy/logrotate/agent" cmp -s "$SRC/deploy/logrotate/agent" "$R/etc/logrotate.d/agent"
manpage_found() { MANPAGER=cat man -M "$R$PREFIX/share/man" agent 2>/dev/null | grep -q '^NAME'; }
expect "man agent finds the installed page" manpage_found

# 2. --prefix=/usr (a distribution's layout): configured only, nothing built.
meson setup "$TMP/usr" "$SRC" --prefix=/usr >"$TMP/setup" 2>&1
expect "meson setup --prefix=/usr" [ $? = 0 ] || tail -5 "$TMP/setup"
UNITDIR=/usr/lib/systemd/system
if [ "$(pkg-config --variable=prefix systemd 2>/dev/null)" = /usr ]; then
	UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd)	# Debian: /lib/systemd/system
fi
meson introspect "$TMP/usr" --installed >"$TMP/installed.json"
installs_to() {	# installs_to SOURCE-SUFFIX DESTINATION
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if any(s.endswith(sys.argv[2]) and d == sys.argv[3] for s, d in m.items()) else 1)' \
		"$TMP/installed.json" "$1" "$2"
}
expect "--prefix=/usr: /usr/bin/agent" installs_to /userspace/agent/agent /usr/bin/agent
expect "--prefix=/usr: /usr/share/man/man1/agent.1" installs_to /docs/agent.1 /usr/share/man/man1/agent.1
expect "--prefix=/usr: $UNITDIR/agent.service (systemd's)" installs_to /agent.service "$UNITDIR/agent.service"
expect "--prefix=/usr: /etc/logrotate.d/agent" installs_to /deploy/logrotate/agent /etc/logrotate.d/agent
expect "--prefix=/usr: deploy/ to /usr/share/agent" installs_to /deploy /usr/share/agent
expect "--prefix=/usr: the unit starts /usr/bin/agent" grep -q '^ExecStart=/usr/bin/agent -j ' "$TMP/usr/agent.service"

# 3. The version: `git describe` of this clone, a v* tag's version or the project's
#    with the commit (-dirty: uncommitted changes); the project's outside a clone.
want=$PROJVER
if [ -z "$(git -C "$SRC" rev-parse --show-cdup 2>/dev/null)" ] &&
	d=$(git -C "$SRC" describe --always --dirty --match 'v[0-9]*' 2>/dev/null); then
	case $d in v[0-9]*) want=${d#v} ;; *) want=$PROJVER-g$d ;; esac
fi
got=$("$R$PREFIX/bin/agent" --version)
expect "agent --version: 'agent $want'" [ "$got" = "agent $want" ] || echo "    got: $got"
# A copy of the tree without .git, then inside someone else's clone.
mkdir -p "$TMP/outer/src"
tar -C "$SRC" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$TMP/outer/src" -xf -
version_of_copy() {
	ninja -C "$TMP/outer/b" userspace/agent/version.h >/dev/null 2>&1 &&
		sed -n 's/^#define AGENT_VERSION "\(.*\)"$/\1/p' "$TMP/outer/b/userspace/agent/version.h"
}
meson setup "$TMP/outer/b" "$TMP/outer/src" >"$TMP/setup2" 2>&1 || tail -5 "$TMP/setup2"
expect "outside a clone: the project's version ($PROJVER)" [ "$(version_of_copy)" = "$PROJVER" ]
git init -q "$TMP/outer" && git -C "$TMP/outer" -c user.name=t -c user.email=t@t \
	commit -q --allow-empty -m outer
expect "inside another project's clone: still the project's version" [ "$(version_of_copy)" = "$PROJVER" ]

# 4. The man page: lints clean, renders, names every option of --help.
[ "$(id -u)" = 0 ] && need_pkgs mandoc groff-base man-db
expect "groff -man -ww: no warning" [ -z "$(groff -man -ww -z "$MAN" 2>&1)" ]
if command -v mandoc >/dev/null; then
	expect "mandoc -Tlint: no warning" mandoc -Tlint -W warning "$MAN"
fi
expect "man -l renders it" bash -c "MANWIDTH=80 man -l '$MAN' 2>/dev/null | grep -q '^OPTIONS'"
"$AGENT" --help >"$TMP/help"
python3 - "$TMP/help" "$MAN" >"$TMP/missing" <<'PY'
import re, sys
help_text = open(sys.argv[1]).read()
man = open(sys.argv[2]).read()
man = re.sub(r"\\f[BIRP]|\\e", "", man).replace("\\-", "-")
opts = set()
for line in help_text.splitlines():
    m = re.match(r"  (-\S.*?)(?:\s{2,}|$)", line)	# the option column
    if m:
        opts.update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", m.group(1)))
opts.update(re.findall(r"(?<![\w-])(-p[a-z]+)\b", help_text))	# -pc, -pk, -pp, -pcontainer...
missing = sorted(o for o in opts if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", man))
print(len(opts), " ".join(missing))
PY
read -r nopts missing <"$TMP/missing"
expect "the man page documents all $nopts options of --help" bash -c "[ '$nopts' -gt 30 ] && [ -z '$missing' ]" ||
	echo "    missing: $missing"
caps_of_man() { grep -o 'CAP_[A-Z_]*' "$MAN" | sort -u | paste -sd' '; }
caps_of_unit() { sed -n 's/^CapabilityBoundingSet=//p' "$SRC/deploy/agent.service" | tr ' ' '\n' | sort | paste -sd' '; }
expect "the man page names the unit's capabilities" [ "$(caps_of_man)" = "$(caps_of_unit)" ]
finish
