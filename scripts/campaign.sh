#!/usr/bin/env bash
# scripts/campaign.sh [ARGS...]: `splitbrain campaign` from a native build that unwinds panics
# (cargo profile `campaign`: the release profile with panic = "unwind"), so each schedule's panic
# is caught and counted. Not run in CI. ARGS go to the command; the default is the full campaign:
# 1 000 000 random explorer schedules across legacy, 1.1, fenced and kraft on every core.
#
#   scripts/campaign.sh                                  # the million
#   scripts/campaign.sh --schedules 20000                # a short one
#   scripts/campaign.sh --shard 3/8 --json               # one of 8 machines' parts
#
# It prints the panics (exit 1 if any), leader -1 and two-controllers counts per mode, and
# schedules per second; progress goes to stderr every 10 s.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
cargo build --quiet --profile campaign -p splitbrain-cli
exec nice -n "${CAMPAIGN_NICE:-10}" "${CARGO_TARGET_DIR:-$ROOT/target}/campaign/splitbrain" campaign "$@"
