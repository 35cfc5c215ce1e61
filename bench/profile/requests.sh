#!/usr/bin/env bash
# requests.sh: nginx and Redis under request mode with and without profiling
# (issue 32's goal: profiling adds at most 5% to request mode's cost), by
# bench/requests/nginx.sh and redis.sh with their profile row on
# (RB_PROFILE=1) and their plain-capture row off (RB_NO_PLAIN=1): rows bare,
# requests, profile, alternated in each round. Arguments go to both.
#   usage: sudo bench/profile/requests.sh [-r ROUNDS] [AGENT]
here=$(cd "$(dirname "$0")" && pwd)
export RB_PROFILE=1 RB_NO_PLAIN=1
"$here/../requests/nginx.sh" "$@"
"$here/../requests/redis.sh" "$@"
