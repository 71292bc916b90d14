#error "RapidJSON is only allowed in src/adapters (see docs/architecture.md)"
