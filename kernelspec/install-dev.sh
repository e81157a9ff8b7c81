#!/bin/sh
# Install the "trellis" kernelspec for the current user, pointing at a build tree's kernel, so
# that Jupyter runs the kernel being developed without `meson install`.
#   kernelspec/install-dev.sh BUILD_DIR [--name NAME]
# The spec goes to $JUPYTER_DATA_DIR/kernels/NAME (default ~/.local/share/jupyter/kernels).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [--name NAME]" >&2; exit 2; }
build=$(cd "$1" && pwd); shift
binary=trellis-kernel
name=trellis
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift ;;
    *) echo "$0: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
kernel="$build/kernel/$binary"
[ -x "$kernel" ] || { echo "$0: $kernel is not built" >&2; exit 1; }
data=${JUPYTER_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/jupyter}
dest="$data/kernels/$name"
mkdir -p "$dest"
sed "s|@KERNEL@|$kernel|" "$here/kernel.json.in" > "$dest/kernel.json"
if [ "$name" != trellis ]; then
  sed -i "s|\"display_name\": \"Trellis\"|\"display_name\": \"Trellis ($name)\"|" "$dest/kernel.json"
fi
cp "$here/logo-32x32.png" "$here/logo-64x64.png" "$here/logo-svg.svg" "$dest/"
echo "installed kernelspec '$name' -> $kernel in $dest"
