#error "CLI11 is only allowed in src/cli (see docs/architecture.md)"
