# Shared by the action's scripts (sourced, not run): how a step fails.
# shellcheck shell=bash

err() { # err CODE MESSAGE: an ::error annotation (escaped as workflow-command data), exit CODE.
  # The message may quote a hostile value: %, CR and LF are escaped, so it cannot start a new
  # workflow command.
  local m=${2//'%'/%25}
  m=${m//$'\r'/%0D}
  m=${m//$'\n'/%0A}
  printf '::error title=perfsweep action::%s\n' "$m" >&2
  exit "$1"
}
