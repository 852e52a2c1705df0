#!/bin/sh
# Install the linkvet build this script sits in (the Linux tarball made by packaging/build.py).
#   ./install.sh                        for this user, under ~/.local
#   sudo PREFIX=/usr/local ./install.sh  for everyone
#   ./install.sh --uninstall            removes what it installed (same PREFIX)
# It copies the program folder to PREFIX/lib/linkvet, links PREFIX/bin/linkvet and linkvet-gui, and puts the
# desktop entry and the icons where the desktop finds them (PREFIX/share/applications, …/icons/hicolor).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}
dest="$prefix/lib/linkvet"
entry="$prefix/share/applications/linkvet.desktop"

refresh() {
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$prefix/share/applications" || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$prefix/share/icons/hicolor/index.theme" ]; then
        gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" || true
    fi
}

if [ -e "$dest" ] && [ ! -x "$dest/linkvet-gui" ]; then
    echo "install.sh: $dest exists and is not a linkvet build; not touching it" >&2
    exit 1
fi

if [ "${1:-}" = "--uninstall" ]; then
    rm -rf "$dest"
    rm -f "$prefix/bin/linkvet" "$prefix/bin/linkvet-gui" "$entry"
    find "$prefix/share/icons/hicolor" -path '*/apps/linkvet.*' -exec rm -f {} + 2>/dev/null || true
    refresh
    echo "linkvet removed from $prefix"
    exit 0
fi

mkdir -p "$prefix/lib" "$prefix/bin" "$prefix/share/applications"
rm -rf "$dest"
cp -R "$here/linkvet" "$dest"
ln -sf "$dest/linkvet" "$prefix/bin/linkvet"
ln -sf "$dest/linkvet-gui" "$prefix/bin/linkvet-gui"
cp -R "$here/share/icons" "$prefix/share/"
# The desktop may not have PREFIX/bin on its PATH: name the program by its full path.
sed -e "s|^Exec=linkvet-gui\$|Exec=\"$dest/linkvet-gui\"|" -e "s|^TryExec=linkvet-gui\$|TryExec=$dest/linkvet-gui|" \
    "$here/share/applications/linkvet.desktop" >"$entry"
refresh
echo "linkvet installed in $dest; commands in $prefix/bin; desktop entry $entry"
