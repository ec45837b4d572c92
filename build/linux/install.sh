#!/usr/bin/env bash
# Installs rehome for the desktop: the binaries (rehome and the window it
# starts, rehome-window, side by side), its icon, the menu entry, and
# "Open with rehome" for CSV, TSV, Excel, JSON and Parquet files.
#
#   build/linux/install.sh            # for this user, under ~/.local
#   sudo build/linux/install.sh --system   # for everyone, under /usr/local
#   build/linux/install.sh --uninstall [--system]
#
# Needs nothing from the network and no optional tools: it runs the desktop
# database updaters when they are there (desktop-file-utils,
# shared-mime-info, gtk icon cache); without update-desktop-database it
# writes the applications folder's mimeinfo.cache itself, since that cache
# is what offers "Open with rehome" in file managers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix="${XDG_DATA_HOME:-$HOME/.local/share}"
bindir="$HOME/.local/bin"
uninstall=0
for a in "$@"; do
  case "$a" in
    --system) prefix=/usr/local/share; bindir=/usr/local/bin ;;
    --uninstall) uninstall=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $a (see --help)" >&2; exit 2 ;;
  esac
done
apps="$prefix/applications"
icons="$prefix/icons/hicolor"
mime="$prefix/mime"

# mime_cache writes $apps/mimeinfo.cache the way update-desktop-database
# does: every MIME type any .desktop file in that folder lists, with the
# files that handle it.
mime_cache() {
  local f tmp
  tmp=$(mktemp "$apps/.mimeinfo.XXXXXX")
  {
    echo '[MIME Cache]'
    for f in "$apps"/*.desktop; do
      [ -f "$f" ] || continue
      sed -n 's/^MimeType=//p' "$f" | tr ';' '\n' | sed '/^$/d' | while read -r t; do
        printf '%s\t%s\n' "$t" "$(basename "$f")"
      done
    done | sort -u | awk -F'\t' '
      $1 != t { if (t != "") print t "=" l; t = $1; l = "" }
      { l = l $2 ";" }
      END { if (t != "") print t "=" l }'
  } >"$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$apps/mimeinfo.cache"
}

refresh() {
  if command -v update-desktop-database >/dev/null; then
    update-desktop-database -q "$apps" || mime_cache
  elif [ -d "$apps" ]; then
    mime_cache
  fi
  command -v update-mime-database >/dev/null && update-mime-database "$mime" >/dev/null 2>&1 || true
  command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t -f "$icons" 2>/dev/null || true
}

if [ $uninstall = 1 ]; then
  rm -f "$bindir/rehome" "$bindir/rehome-window" "$apps/rehome.desktop" "$mime/packages/rehome-mime.xml"
  for s in 512 256 128 64 48; do rm -f "$icons/${s}x${s}/apps/rehome.png"; done
  refresh
  echo "rehome removed (its data in ~/.local/share/rehome or \$REHOME_HOME is kept)."
  exit 0
fi

bin="$root/build/bin/rehome"
for b in "$bin" "$bin-window"; do
  [ -x "$b" ] || { echo "install.sh: $b is missing: run \`make build\` first" >&2; exit 1; }
done
install -D -m 0755 "$bin" "$bindir/rehome"
install -D -m 0755 "$bin-window" "$bindir/rehome-window"
install -D -m 0644 "$here/rehome.desktop" "$apps/rehome.desktop"
install -D -m 0644 "$here/rehome-mime.xml" "$mime/packages/rehome-mime.xml"
install -D -m 0644 "$root/build/appicon.png" "$icons/512x512/apps/rehome.png"
# Smaller sizes when ImageMagick is at hand; the 512 px icon scales otherwise.
if command -v convert >/dev/null; then
  for s in 256 128 64 48; do
    mkdir -p "$icons/${s}x${s}/apps"
    convert "$root/build/appicon.png" -resize "${s}x${s}" "$icons/${s}x${s}/apps/rehome.png" 2>/dev/null || true
  done
fi
# The .desktop file runs `rehome`: point it at the installed binary if that
# folder is not on PATH.
case ":$PATH:" in
  *":$bindir:"*) ;;
  *) sed -i "s|^Exec=rehome |Exec=$bindir/rehome |; s|^TryExec=rehome$|TryExec=$bindir/rehome|" "$apps/rehome.desktop" ;;
esac
refresh
echo "rehome installed: $bindir/rehome, menu entry and \"Open with rehome\" for data files."
