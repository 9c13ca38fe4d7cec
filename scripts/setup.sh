# Sourced by the run and test scripts: installs what a fresh machine lacks, each step a
# no-op when it is already there.

ensure_rust_components() {
  local have
  have=$(rustup component list --installed 2>/dev/null || true)
  for c in rustfmt clippy; do
    if ! grep -q "^$c" <<<"$have"; then
      echo "== installing rustup component $c"
      rustup component add "$c"
    fi
  done
}
