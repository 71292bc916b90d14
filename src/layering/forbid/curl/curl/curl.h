#error "libcurl is only allowed in src/adapters (see README, Architecture)"
