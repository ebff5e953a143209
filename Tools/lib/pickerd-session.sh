# Sourced by Tools/bench-present and Tools/soak: builds what a session needs in CONFIG (debug or
# release), starts pickerd on a temporary directory with the demo library and the scripted agent
# approving the first Recommended suggestion, registers the test client app, and runs one
# presentation (consent, agent start-up) so measurements start warm. Sets: bin, dir, pid.
start_pickerd_session() {
  local config="$1"
  for p in pickerd pickerctl picker-agent pickerd-test-client; do swift build -c "$config" --product "$p" >&2; done
  bin="$(swift build -c "$config" --show-bin-path)"
  dir="$(mktemp -d /tmp/pickerd-measure.XXXXXX)"
  trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
  echo '{"consent": "accept", "reviews": [{"list": "recommended", "index": 0, "deselect": ["song"]}]}' > "$dir/script.json"
  "$bin/pickerd" --runtime-dir "$dir/run" --data-dir "$dir/data" --config-dir "$dir/config" --seed-demo \
    --agent-command "$bin/picker-agent --script $dir/script.json" --log-level warning 2>"$dir/pickerd.log" >/dev/null &
  pid=$!
  for _ in $(seq 1 300); do "$bin/pickerctl" status --runtime-dir "$dir/run" >/dev/null 2>&1 && break; sleep 0.1; done
  cp Tools/journal-demo.entitlements "$dir/e.plist"
  "$bin/pickerctl" apps register --executable "$bin/pickerd-test-client" --entitlements "$dir/e.plist" --runtime-dir "$dir/run" >/dev/null
  "$bin/pickerd-test-client" "$dir/run" present >/dev/null
}
