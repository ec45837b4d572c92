# rehome — build, run and test. `make run` and `make test` install what is
# missing first (build/setup.sh), so they are the only commands a fresh
# Debian/Ubuntu machine needs.

SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)

# Build tags. TAGS: every build and test (podman's bindings need them);
# APP_TAGS: the window binary.
TAGS     := remote exclude_graphdriver_btrfs btrfs_noversion exclude_graphdriver_devicemapper containers_image_openpgp
APP_TAGS := desktop production webkit2_41 $(TAGS)
comma := ,
empty :=
space := $(empty) $(empty)
csv = $(subst $(space),$(comma),$(strip $(1)))

# go-nvml's headers mark some calls deprecated; that is noise here.
export CGO_CFLAGS := -O2 -g -Wno-deprecated-declarations -D_FORTIFY_SOURCE=2 -fstack-protector-strong

# Two builds of the same main.go: BIN, the command users type (no GTK or
# WebKitGTK linked: a terminal command does not load the window's 169
# libraries), and WINDOW_BIN, the window, which BIN starts when it is given
# no command or a file to open (app/window/exec.go).
BIN        := build/bin/rehome
WINDOW_BIN := build/bin/rehome-window
VERSION  := $(shell build/package/version.sh 2>/dev/null || echo dev)
# A hardened binary (PIE, RELRO), as Debian asks. Not -z now: go-nvml binds
# NVML lazily (dlopen at run time), and immediate binding fails to start.
LDFLAGS  := -s -w -X main.version=$(VERSION) -linkmode=external -extldflags=-Wl,-z,relro
GO_SRC   := $(shell find . -name '*.go' -not -path './frontend/*' -not -name '*_test.go') go.mod go.sum $(wildcard sandbox/recipe/*.py sandbox/recipe/*.txt sandbox/recipe/*.sh sandbox/probes/*.py)
UI_SRC   := $(shell find frontend/src -type f) frontend/index.html frontend/vite.config.ts frontend/package-lock.json
ARTIFACTS := build/test-artifacts

.PHONY: fuzz all run test build install-desktop deps deps-test deps-package ui sandbox-image gotest vet lint fmt-check uitest e2e window bench bench-window clean package package-check fresh-check gen llama

all: build

deps:
	@bash build/setup.sh run

deps-test:
	@bash build/setup.sh test

deps-package:
	@bash build/setup.sh package

ui: frontend/dist/index.html
frontend/dist/index.html: $(UI_SRC)
	cd frontend && npm run build --silent

build: deps $(BIN) $(WINDOW_BIN)
$(BIN): frontend/dist/index.html $(GO_SRC)
	go build -buildmode=pie -tags "$(call csv,$(TAGS))" -ldflags "$(LDFLAGS)" -o $@ .
# The window is built after the command, so both carry one version (the
# CLI beside a window refuses another version's): a target that builds the
# window alone (bench-window) would leave them apart.
$(WINDOW_BIN): frontend/dist/index.html $(GO_SRC) $(BIN)
	go build -buildmode=pie -tags "$(call csv,$(APP_TAGS))" -ldflags "$(LDFLAGS)" -o $@ .

# Menu entry, icon and "Open with rehome" for data files (per user; run
# build/linux/install.sh --system as root for everyone).
install-desktop: build
	bash build/linux/install.sh

# Open the window; with no display, serve the UI to a browser instead.
run: deps build
	@$(BIN) sandbox image build --quiet || echo "The sandbox image could not be built now: the Code Interpreter says how (Settings → Sandbox)."
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then exec $(BIN); \
	else echo "No display: serving the UI; open the URL below in a browser."; exec $(BIN) serve; fi

test: deps-test build fmt-check vet lint sandbox-image gotest fuzz uitest e2e window

# The UI's TypeScript for the Go methods it calls and the types they take
# and return (frontend/src/lib/gen/api.gen.ts, from app.App by build/tsgen).
# Run after changing either; a Go test fails while the file is out of date.
gen:
	go run -tags "$(call csv,$(TAGS))" ./build/tsgen -tags "$(TAGS)"

# The sandbox's image, built from Debian packages by sandbox/recipe/. A no-op
# when the image of this recipe exists; loads the cached archive
# (/var/cache/rehome or $$REHOME_CACHE) when there is one.
sandbox-image: build
	$(BIN) sandbox image build --quiet

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet: frontend/dist/index.html
	go vet -tags "$(call csv,$(TAGS))" ./...

# staticcheck (every package, with the window's tags, which add app/'s own),
# go.mod as `go mod tidy` leaves it, and svelte-check over the UI.
# staticcheck is installed once, by the module proxy, into a cache that
# names its version (go install is a no-op once it is there).
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rehome/tools/staticcheck-$(STATICCHECK_VERSION)/staticcheck
$(STATICCHECK):
	cd / && GOBIN=$(dir $@) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

lint: frontend/dist/index.html $(STATICCHECK)
	$(STATICCHECK) -tags "$(call csv,$(APP_TAGS))" ./...
	@go mod tidy -diff >/dev/null || { echo "go.mod or go.sum is not tidy: run go mod tidy"; go mod tidy -diff; exit 1; }
	cd frontend && npx svelte-check --tsconfig ./tsconfig.json --fail-on-warnings

# llama.cpp's llama-server in two builds, CPU and Vulkan: the runtime rehome
# runs a carried model with (backend/llamarun; the package installs both
# under /usr/lib/rehome) and the tests' real model server
# (internal/testsupport/llamatest). Built from the source inside npm's
# node-llama-cpp once each, then kept in the cache (/var/cache/rehome or
# $$REHOME_CACHE; about 8 minutes each on 2 cores).
llama: deps-test
	@bash build/llm/llama-server.sh
	@bash build/llm/llama-server.sh --vulkan

# Never from the test cache (-count=1: Podman, the image and the tools are
# outside what Go hashes). Every skipped test is listed at the end (never
# read as a pass); the raw events are kept in $(ARTIFACTS)/gotest.json.
gotest: build sandbox-image llama
	mkdir -p $(ARTIFACTS)
	set -o pipefail; REHOME_LLAMA_SERVER=$$(bash build/llm/llama-server.sh --find) REHOME_LLAMA_SERVER_VULKAN=$$(bash build/llm/llama-server.sh --find --vulkan) REHOME_REQUIRE_LLAMA=1 REHOME_REQUIRE_PODMAN=1 REHOME_REQUIRE_TOOLS=1 REHOME_BIN=$(abspath $(BIN)) go test -count=1 -json -tags "$(call csv,$(TAGS))" -timeout 20m ./... 2>&1 | python3 build/gotest-report.py $(ARTIFACTS)/gotest.json
	# Wails' own call path (internal to Wails; the window's tags link it):
	# a panic in a bound method answers the page an error in words.
	REHOME_BIN=$(abspath $(BIN)) go test -count=1 -tags "$(call csv,$(APP_TAGS))" -run TestWails ./app/window

# Each fuzz test (Go's native fuzzing) of a parser of outside bytes, for a
# fixed budget (FUZZTIME each, default 10s; build/fuzz.sh lists them).
fuzz:
	bash build/fuzz.sh

uitest:
	cd frontend && npx vitest run

e2e: build sandbox-image llama
	mkdir -p $(ARTIFACTS)
	cd frontend && REHOME_LLAMA_SERVER=$$(bash ../build/llm/llama-server.sh --find) REHOME_REQUIRE_LLAMA=1 REHOME_BIN=$(abspath $(BIN)) ARTIFACTS=$(abspath $(ARTIFACTS)) node --test --test-concurrency=1 $$(ls e2e/*.test.mjs | grep -v window)

window: build sandbox-image llama
	mkdir -p $(ARTIFACTS)
	cd frontend && REHOME_LLAMA_SERVER=$$(bash ../build/llm/llama-server.sh --find) REHOME_REQUIRE_LLAMA=1 REHOME_BIN=$(abspath $(BIN)) ARTIFACTS=$(abspath $(ARTIFACTS)) node --test --test-concurrency=1 e2e/window.test.mjs e2e/window-tour.test.mjs e2e/window-editor.test.mjs e2e/window-import.test.mjs e2e/window-memory-canvas.test.mjs e2e/window-paste.test.mjs

# Debian packages and the offline bundle in build/dist (build/package/):
# rehome_<version>_amd64.deb, rehome-sandbox-image_<n>+<tag>_amd64.deb (the
# image archive; built first when missing) and rehome-offline-<version>-amd64.tar
# (both, plus Podman and every package a minimal Debian 12 lacks; needs the
# Debian mirror). package-check installs them in fresh Debian 12 roots with
# no network (root; several minutes; not part of `make test`).
package: deps-package build llama
	@# The binary must carry the package's version (it is baked in at link time).
	@[ "$$($(BIN) version)" = "rehome $(VERSION)" ] && [ "$$($(WINDOW_BIN) version)" = "rehome $(VERSION)" ] || { rm -f $(BIN) $(WINDOW_BIN); $(MAKE) --no-print-directory $(BIN) $(WINDOW_BIN); }
	REHOME_VERSION=$(VERSION) build/package/deb.sh
	REHOME_VERSION=$(VERSION) build/package/image-deb.sh
	REHOME_VERSION=$(VERSION) build/package/offline.sh

package-check: package
	REHOME_VERSION=$(VERSION) build/package/check.sh

# `make test` on a fresh Debian 12 root (mmdebstrap + chroot, needs root):
# a clean clone of HEAD, build/setup.sh test, then every part, timed.
fresh-check:
	bash build/fresh-check.sh

bench: build bench-window
	REHOME_BIN=$(abspath $(BIN)) go test -tags "$(call csv,$(TAGS))" -run '^$$' -bench . -benchmem ./...

# The window's memory at rest (Xvfb, 20 s after the start, a fresh data
# folder each time), three alternating rounds: the baseline (GPU
# compositing on demand, WebKit's web-browser cache model, no trim: the
# window before issue 30), WebKit's lighter settings without the trim at
# rest, the window with OpenGL's drivers in its UI process (as it shipped
# before), and the window as it ships (docs/window.md, "Memory at rest").
bench-window: $(WINDOW_BIN)
	build/bench/window-rest.sh 3 \
		"baseline=env REHOME_WEBVIEW_GPU=ondemand REHOME_WEBKIT_CACHE=browser REHOME_WINDOW_TRIM=off REHOME_WINDOW_UI_GL=keep $(WINDOW_BIN)" \
		"no-trim=env REHOME_WINDOW_TRIM=off REHOME_WINDOW_UI_GL=keep $(WINDOW_BIN)" \
		"ui-gl=env REHOME_WINDOW_UI_GL=keep $(WINDOW_BIN)" \
		"rehome=$(WINDOW_BIN)"

clean:
	rm -rf build/bin $(ARTIFACTS) frontend/dist/assets frontend/dist/index.html
