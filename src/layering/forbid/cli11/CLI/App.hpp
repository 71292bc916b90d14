#error "CLI11 is only allowed in src/cli (see README, Architecture)"
