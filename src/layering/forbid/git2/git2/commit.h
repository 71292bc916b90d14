#error "libgit2 is only allowed in src/adapters (see docs/architecture.md)"
