# Sourced by the run, test and build scripts: installs what a fresh machine lacks, each
# step a no-op when it is already there.

WASM_BINDGEN_VERSION=0.2.130 # must equal the wasm-bindgen pin in Cargo.toml

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

ensure_wasm_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "== installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

ensure_wasm_bindgen() {
  export PATH="$HOME/.cargo/bin:$PATH"
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ] ||
    ! command -v wasm-bindgen-test-runner >/dev/null; then
    echo "== installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  fi
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    echo "== installing Debian's chromium and chromium-driver"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

# A Vulkan driver for the GPU backend's tests on a machine without a GPU: Mesa's lavapipe
# (a software implementation; a real GPU's own driver is used where there is one).
ensure_vulkan() {
  if ! dpkg -s libvulkan1 mesa-vulkan-drivers >/dev/null 2>&1; then
    echo "== installing Debian's Vulkan loader and Mesa's software driver (lavapipe)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libvulkan1 mesa-vulkan-drivers >/dev/null
  fi
}

ensure_node_modules() {
  local stamp=node_modules/.lock-sha
  local want
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "== npm ci"
    npm ci --no-audit --no-fund
    echo "$want" >"$stamp"
  fi
}

# The PyTorch reference of the benchmark, in its own virtualenv (target/torch-venv, about
# 5 GB: PyPI's Linux wheel brings the CUDA libraries; a minute or two to install, once).
ensure_torch() {
  local venv=target/torch-venv stamp=target/torch-venv/.requirements-sha
  local want
  want=$(sha256sum bench/torch-requirements.txt | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "== installing PyTorch for the benchmark's reference (bench/torch-requirements.txt)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r bench/torch-requirements.txt
    echo "$want" >"$stamp"
  fi
}

# RUSTFLAGS of each wasm kernel build (webgpu: the relaxed-SIMD build with the GPU backend).
flags_of() {
  case "$1" in
    scalar) echo "" ;;
    simd128) echo "-C target-feature=+simd128" ;;
    relaxed-simd | webgpu) echo "-C target-feature=+simd128,+relaxed-simd" ;;
    *) echo "unknown variant $1" >&2; return 1 ;;
  esac
}
