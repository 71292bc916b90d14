#!/usr/bin/env bash
# perfsweep GitHub Action: builds perfsweep's argv from PERFSWEEP_IN_* environment variables and
# runs it. Inputs reach this script only through the environment (action.yml maps every input to
# env:), and every value becomes exactly one argv word "--flag=value": no eval, no word splitting,
# no globbing, no shell re-parsing, so a hostile value (`$(rm -rf /)`, quotes, newlines, `;`) is
# passed through literally. An optional flag is added only when its variable is non-empty.
#
# Environment:
#   PERFSWEEP_BIN          the perfsweep executable (set by the build step)
#   PERFSWEEP_IN_<NAME>    one per action input (see action.yml and docs/action.md)
# Exit status: perfsweep's, except that detect's regression fails the step only with
# fail-on-alert=true (compare's fails it unless fail-on-alert=false), "inconclusive" (4) passes in
# detect and investigate (run, record and compare: 4 is a point without a value, and fails), and
# "improvement" (5) never fails it.
set -euo pipefail
set -f # no globbing anywhere: no value is ever expanded as a pattern

# shellcheck source=action/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh" # err()
die() { err 2 "$1"; } # usage error: names the input and what was expected

bin=${PERFSWEEP_BIN:-}
[ -n "$bin" ] || die "PERFSWEEP_BIN is empty: the build step did not produce a perfsweep binary"
mode=${PERFSWEEP_IN_MODE:-investigate}

# Which inputs each mode accepts. An input that is set but not accepted by the mode is an error
# (better than silently ignoring it or handing perfsweep an option it will reject).
declare -A accepts=(
  [investigate]="config metric benchmark testbed metric-regex direction history image test build commits-probe jax-toolbox cherry-picks
                 to-commit repos ref gpus runtime
                 mounts repeats timeout max-runs from to step state-dir narrow strategy check
                 alert-threshold fail-on-alert comment-on-alert comment-key issue-title
                 issue-labels close-issue-on-recovery record output-dir extra-args
                 dashboard dashboard-branch dashboard-folder dashboard-url"
  [demo]="output-dir extra-args"
  [detect]="config metric benchmark testbed direction history alert-threshold fail-on-alert extra-args
            dashboard dashboard-branch dashboard-folder dashboard-url"
  [record]="config metric benchmark testbed metric-regex direction history label benchmark-output extra-args
            dashboard dashboard-branch dashboard-folder dashboard-url"
  [run]="config metric benchmark testbed metric-regex direction history image test gpus runtime mounts repeats timeout
         check label date extra-args"
  [compare]="config metric benchmark testbed metric-regex direction image test gpus runtime mounts timeout
             base-workdir base-test base-history max-pairs alert-threshold fail-on-alert
             comment-on-alert comment-key extra-args"
)
[ -n "${accepts[$mode]+x}" ] || die "input 'mode' is '$mode'; expected one of: investigate, demo, detect, record, run, compare, setup"

# Every input the action knows, with the env variable that carries it.
all_inputs=(config metric benchmark testbed base-workdir base-test base-history max-pairs metric-regex direction history image test build commits-probe jax-toolbox cherry-picks
            to-commit repos ref gpus runtime mounts
            repeats timeout max-runs from to step state-dir narrow strategy check alert-threshold
            fail-on-alert comment-on-alert comment-key issue-title issue-labels
            close-issue-on-recovery record output-dir label date benchmark-output extra-args
            dashboard dashboard-branch dashboard-folder dashboard-url)
get() { # get INPUT: sets REPLY to the input's value (metric-regex -> $PERFSWEEP_IN_METRIC_REGEX)
  local n=${1//-/_}
  n="PERFSWEEP_IN_${n^^}"
  REPLY=${!n:-}
}
is_accepted() {
  local w
  for w in ${accepts[$mode]}; do [ "$w" = "$1" ] && return 0; done
  return 1
}
for name in "${all_inputs[@]}"; do
  get "$name"
  v=$REPLY
  case "$name" in fail-on-alert | comment-on-alert | close-issue-on-recovery | to-commit | dashboard) [ "$v" != false ] || v="" ;; esac # false = unset
  # The dashboard's branch has a default (gh-pages): it counts as set only with the dashboard.
  [ "$name" != dashboard-branch ] || [ "${PERFSWEEP_IN_DASHBOARD:-false}" = true ] || v=""
  if [ -n "$v" ] && ! is_accepted "$name"; then
    die "input '$name' is set but mode '$mode' does not use it (mode '$mode' takes: $(tr -s ' \n' '  ' <<<"${accepts[$mode]}"))"
  fi
done

args=()
opt() { # opt INPUT FLAG: append "FLAG=value" as one word when the input is non-empty
  local val
  get "$1"
  val=$REPLY
  [ -z "$val" ] || args+=("$2=$val")
}
bool() { # bool INPUT: sets REPLY to true, false or '' after validating
  get "$1"
  case "$REPLY" in
    true | false | "") ;;
    *) die "input '$1' is '$REPLY'; expected true or false" ;;
  esac
}
lines() { # lines INPUT [FLAG]: per non-blank line one word, "FLAG=line" or (no FLAG) the line itself
  local val line
  get "$1"
  val=$REPLY
  [ -n "$val" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    [[ "$line" =~ ^[[:space:]]*$ ]] && continue
    line=${line#"${line%%[![:space:]]*}"} # trim leading blanks (YAML block indentation)
    line=${line%"${line##*[![:space:]]}"} # and trailing ones
    if [ -n "${2:-}" ]; then args+=("$2=$line"); else args+=("$line"); fi
  done <<<"$val"
}

# alert-threshold goes to --threshold as written: perfsweep reads "5%"/0.05 as a relative change
# and, from 100% on, "150%"/"1.5x" as github-action-benchmark's ratio of how much worse (which
# needs the metric's direction, known only to perfsweep). Only the shape is checked here.
get alert-threshold
threshold=$REPLY
if [ -n "$threshold" ] && ! [[ "$threshold" =~ ^[0-9]*\.?[0-9]+(%|x)?$ ]]; then
  die "input 'alert-threshold' is '$threshold'; expected a relative change like '5%' or '0.05', or a ratio of how much worse like '150%' or '1.5x'"
fi
get record
v=$REPLY
[ -z "$v" ] || [ "$v" = today ] || [[ "$v" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || die "input 'record' is '$v'; expected today or a date YYYY-MM-DD"

# Validate the inputs whose shape we know, so the error names the action input.
for name in repeats max-runs max-pairs; do
  get "$name"
  v=$REPLY
  [ -z "$v" ] || [[ "$v" =~ ^[0-9]+$ ]] || die "input '$name' is '$v'; expected a non-negative integer"
done
get timeout
v=$REPLY
[ -z "$v" ] || [[ "$v" =~ ^([0-9]+|([0-9]+[dhms])+)$ ]] || die "input 'timeout' is '$v'; expected a duration like 600, 600s, 10m, 2h or 1h30m"
get check
v=$REPLY
[ -z "$v" ] || [ "$v" = metric ] || [ "$v" = exit-code ] || die "input 'check' is '$v'; expected metric or exit-code"
get jax-toolbox
v=$REPLY
[ -z "$v" ] || [ "$v" = auto ] || [ "$v" = jax ] || [ "$v" = nightly ] || die "input 'jax-toolbox' is '$v'; expected auto, jax or nightly"
get gpus
v=$REPLY
[ -z "$v" ] || [[ "$v" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "input 'gpus' is '$v'; expected a comma-separated list of GPU indices like 0,1,2,3"

bool fail-on-alert
fail_on_alert=$REPLY
bool comment-on-alert
comment_on_alert=$REPLY
bool close-issue-on-recovery
close_on_recovery=$REPLY
bool to-commit
to_commit=$REPLY
bool dashboard
dashboard=$REPLY

# The dashboard (dashboard: true): written after the command into $RUNNER_TEMP, committed into
# dashboard-branch (gh-pages by default; "" = kept as a workflow artifact only) of the history's
# repository (a git+URL#BRANCH history: that URL; otherwise this repository), under
# dashboard-folder. dashboard-url is where it is served: the report links the regressed series'
# page there and shows its chart; it defaults to the GitHub Pages address of that repository
# when the branch is gh-pages on github.com.
get history
history=$REPLY
get dashboard-branch
dashboard_branch=$REPLY
get dashboard-folder
dashboard_folder=$REPLY
get dashboard-url
dashboard_url=$REPLY
dashboard_publish=""
if [ "$dashboard" = true ]; then
  [ -n "$history" ] || die "input 'dashboard' is true but 'history' is empty: the dashboard draws the history"
  [ -z "$dashboard_branch" ] || [[ "$dashboard_branch" =~ ^[A-Za-z0-9._/-]+$ ]] || die "input 'dashboard-branch' is '$dashboard_branch'; expected a branch name such as gh-pages (or empty for a workflow artifact)"
  [ -z "$dashboard_folder" ] || { [[ "$dashboard_folder" =~ ^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$ ]] && [[ "/$dashboard_folder/" != */./* ]] && [[ "/$dashboard_folder/" != */../* ]]; } || die "input 'dashboard-folder' is '$dashboard_folder'; expected a relative folder such as perf/dashboard"
  [ -z "$dashboard_url" ] || [[ "$dashboard_url" =~ ^https?://[^[:space:]]+$ ]] || die "input 'dashboard-url' is '$dashboard_url'; expected an https:// address"
  pages_repo=${GITHUB_REPOSITORY:-}
  if [ -n "$dashboard_branch" ]; then
    case "$history" in
      git:*) dashboard_publish="git:$dashboard_branch" ;;
      git+*'#'*)
        dashboard_publish="${history%'#'*}#$dashboard_branch"
        if [[ "$history" =~ ^git\+https://github\.com/([^/]+/[^/#]+)'#' ]]; then pages_repo=${BASH_REMATCH[1]%.git}; fi
        ;;
      *)
        [ -n "${GITHUB_SERVER_URL:-}" ] && [ -n "${GITHUB_REPOSITORY:-}" ] || die "input 'dashboard-branch' needs GITHUB_SERVER_URL and GITHUB_REPOSITORY (a GitHub Actions job) for a history kept in a file"
        dashboard_publish="git+$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git#$dashboard_branch"
        ;;
    esac
  fi
  if [ -z "$dashboard_url" ] && [ "$dashboard_branch" = gh-pages ] && [ "${GITHUB_SERVER_URL:-}" = https://github.com ] && [[ "$pages_repo" == */* ]]; then
    owner=${pages_repo%%/*}
    owner=${owner,,}
    name=${pages_repo#*/}
    if [ "${name,,}" = "$owner.github.io" ]; then dashboard_url="https://$owner.github.io/"; else dashboard_url="https://$owner.github.io/$name/"; fi
    [ -z "$dashboard_folder" ] || dashboard_url="$dashboard_url$dashboard_folder/"
  fi
fi

opt config --config # a main-app option (CLI11 reads config files there): before the subcommand
args+=("$mode")
if [ "$mode" = record ] || [ "$mode" = run ] || [ "$mode" = compare ] || [ "$mode" = investigate ]; then
  lines metric --metric # one metric per line: each its own series
else
  opt metric --metric
fi
opt benchmark --benchmark
opt testbed --testbed
opt base-workdir --base-workdir
opt base-test --base-test
opt base-history --base-history
opt max-pairs --max-pairs
opt metric-regex --metric-regex
opt direction --direction
opt history --history
opt runtime --runtime
opt image --image
opt test --test
opt build --build
opt commits-probe --commits-probe
opt jax-toolbox --jax-toolbox
lines cherry-picks --cherry-pick
lines repos --repo
lines mounts --mount
opt ref --ref
opt gpus --gpus
opt repeats --repeats
opt timeout --timeout
opt max-runs --max-runs
opt from --from
opt to --to
opt step --step
opt state-dir --state
opt narrow --narrow
opt strategy --strategy
opt check --check
opt label --label
opt date --date
opt benchmark-output --benchmark-output
opt output-dir --output-dir
opt comment-key --key
opt issue-title --new-issue
lines issue-labels --issue-label
opt record --record
[ -z "$threshold" ] || args+=("--threshold=$threshold")
if [ "$mode" = compare ]; then
  [ "$fail_on_alert" != false ] || args+=("--report-only") # default: a regression fails the check
  [ "$comment_on_alert" != true ] || args+=("--comment")
fi
if [ "$mode" = investigate ]; then
  [ "$fail_on_alert" != true ] || args+=("--fail-on-regression")
  [ "$comment_on_alert" != true ] || args+=("--comment")
  [ "$close_on_recovery" != true ] || args+=("--close-on-recovery")
  [ "$to_commit" != true ] || args+=("--to-commit")
  [ -z "$dashboard_url" ] || args+=("--dashboard-url=$dashboard_url")
fi
lines extra-args # one argv word per line, verbatim (for flags this action has no input for)

# Keep the action's own variables out of the environment of perfsweep and of the benchmark it
# starts; the token stays in GITHUB_TOKEN, which perfsweep reads and never prints.
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^PERFSWEEP_IN_' || true)

rc=0
"$bin" "${args[@]}" || rc=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'exit-code=%d\n' "$rc" >>"$GITHUB_OUTPUT"; fi
# The dashboard of the history, after any verdict (a regression is when it is wanted most), not
# after a usage or infrastructure error.
if [ "$dashboard" = true ] && [ "$rc" != 2 ] && [ "$rc" != 3 ]; then
  site="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/perfsweep-dashboard"
  dargs=(dashboard "--history=$history" "--output-dir=$site")
  [ -z "$dashboard_publish" ] || dargs+=("--publish=$dashboard_publish")
  [ -z "$dashboard_publish" ] || [ -z "$dashboard_folder" ] || dargs+=("--publish-dir=$dashboard_folder")
  drc=0
  "$bin" "${dargs[@]}" || drc=$?
  if [ "$drc" -ne 0 ]; then
    echo "::error title=perfsweep dashboard::writing or publishing the dashboard failed (exit $drc); see the log above"
    rc=$drc
  elif [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'dashboard-path=%s\n' "$site" >>"$GITHUB_OUTPUT"
    [ -z "$dashboard_url" ] || printf 'dashboard-url=%s\n' "$dashboard_url" >>"$GITHUB_OUTPUT"
  fi
fi
case "$rc" in
  1)
    if [ "$mode" = detect ] && [ "$fail_on_alert" != true ]; then
      echo "::warning title=perfsweep::regression detected (fail-on-alert is not true, so the step passes)"
      rc=0
    fi
    ;;
  4)
    case "$mode" in
      # A point without a value (an output without the metric, a crashed run): the step fails;
      # perfsweep's error above names the point, the metric and the reason.
      run | record | compare) echo "::error title=perfsweep::$mode: a point has no value (exit 4; the error above says which and why)" ;;
      *) echo "::notice title=perfsweep::inconclusive (exit 4): the reason is in the log above"; rc=0 ;;
    esac
    ;;
  5) echo "::notice title=perfsweep::the latest level is a significant improvement"; rc=0 ;;
esac
exit "$rc"
