#!/usr/bin/env bash
# Prints the machine-readable debian/copyright of the rehome package: rehome
# itself and every Go module linked into BINARY (from `go version -m`), each
# with the license its LICENSE file names (read from the module cache).
set -euo pipefail
bin=$1
modcache=$(go env GOMODCACHE)
cat <<'EOF2'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: rehome
Comment: rehome is one statically linked Go binary with its web UI
 (Svelte, built by Vite) embedded. The Go modules linked into it are
 listed below with the license their LICENSE file names.

Files: *
Copyright: 2026 the rehome developers
License: rehome
 rehome's own license has not been chosen yet; until it is, the rehome
 developers grant the right to install, run and redistribute this
 package unchanged.
EOF2
go version -m "$bin" | awk '$1=="dep" || $1=="=>" {print $2, $3}' | sort -u | while read -r mod ver; do
  dir=$modcache/$(echo "$mod" | sed 's/[A-Z]/!\L&/g')@$ver
  lic=
  for f in "$dir"/LICENSE* "$dir"/COPYING* "$dir"/LICENCE*; do
    [ -f "$f" ] || continue
    t=$(head -c 4000 "$f" | tr -s '[:space:]' ' ')
    case "$t" in
      *"Apache License"*) lic=Apache-2.0 ;;
      *"Mozilla Public License"*) lic=MPL-2.0 ;;
      *"ISC License"* | *"Permission to use, copy, modify, and/or distribute"*) lic=ISC ;;
      *"Permission is hereby granted, free of charge"*) lic=Expat ;;
      *"Neither the name"* | *"endorse or promote"*) lic=BSD-3-clause ;;
      *"Redistribution and use in source and binary forms"*) lic=BSD-2-clause ;;
      *"GNU LESSER GENERAL PUBLIC"*) lic=LGPL ;;
      *"Unlicense"* | *"public domain"*) lic=public-domain ;;
    esac
    [ -n "$lic" ] && break
  done
  printf '\nFiles: (linked Go module) %s %s\nCopyright: the authors of %s\nLicense: %s\n' "$mod" "$ver" "$mod" "${lic:-see-upstream}"
done
cat <<'EOF2'

License: Apache-2.0
 On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0.

License: MPL-2.0
 On Debian systems the full text is in /usr/share/common-licenses/MPL-2.0.

License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a
 copy of this software and associated documentation files, to deal in the
 Software without restriction, subject to the copyright notice and this
 permission notice being included in all copies or substantial portions.
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.

License: BSD-3-clause
 Redistribution and use in source and binary forms, with or without
 modification, are permitted provided the copyright notice, conditions and
 disclaimer are retained and the names of the authors are not used to
 endorse derived products without permission.

License: BSD-2-clause
 Redistribution and use in source and binary forms, with or without
 modification, are permitted provided the copyright notice, conditions and
 disclaimer are retained.

License: ISC
 Permission to use, copy, modify, and/or distribute this software for any
 purpose with or without fee is hereby granted, provided that the copyright
 notice and this permission notice appear in all copies.

License: LGPL
 On Debian systems the full texts are in /usr/share/common-licenses/.

License: public-domain
 Released into the public domain by its authors.

License: see-upstream
 No LICENSE file was found in the module; see the module's source.
EOF2
