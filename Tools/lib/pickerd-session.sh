# Sourced by Tools/bench-present and Tools/soak: builds what a session needs in CONFIG (debug or
# release), starts pickerd on a temporary directory with the demo library and the scripted agent
# approving the first Recommended suggestion, registers the test client app, and runs one
# presentation (consent, agent start-up) so measurements start warm. Sets: bin, dir, pid.
# register_app_copies N: N copies of the test client registered as apps of their own, exported as
# PICKERD_TEST_APPS (pickerd serves one picker per app at a time, so concurrency needs many apps).
start_pickerd_session() {
  local config="$1"
  # pickerd-reader and pickerd-demo-library: pickerd will not start without the program it has files
  # read by, and --seed-demo runs the demo library's writer.
  for p in pickerd pickerd-reader pickerd-demo-library pickerctl picker-agent pickerd-test-client; do swift build -c "$config" --product "$p" >&2; done
  bin="$(swift build -c "$config" --show-bin-path)"
  dir="$(mktemp -d /tmp/pickerd-measure.XXXXXX)"
  trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
  echo '{"consent": "accept", "reviews": [{"list": "recommended", "index": 0, "deselect": ["song"]}]}' > "$dir/script.json"
  "$bin/pickerd" --runtime-dir "$dir/run" --data-dir "$dir/data" --config-dir "$dir/config" --seed-demo --developer-mode \
    --agent-command "$bin/picker-agent --script $dir/script.json" --log-level warning 2>"$dir/pickerd.log" >/dev/null &
  pid=$!
  for _ in $(seq 1 300); do "$bin/pickerctl" status --runtime-dir "$dir/run" >/dev/null 2>&1 && break; sleep 0.1; done
  cp Tools/journal-demo.entitlements "$dir/e.plist"
  "$bin/pickerctl" apps register --executable "$bin/pickerd-test-client" --entitlements "$dir/e.plist" --runtime-dir "$dir/run" >/dev/null
  "$bin/pickerd-test-client" "$dir/run" present >/dev/null
}

register_app_copies() {
  local apps=()
  mkdir -p "$dir/apps"
  for i in $(seq 0 $(($1 - 1))); do
    cp "$bin/pickerd-test-client" "$dir/apps/app-$i"
    "$bin/pickerctl" apps register --executable "$dir/apps/app-$i" --entitlements "$dir/e.plist" --bundle-id "org.test.app-$i" \
      --name "Test App $i" --runtime-dir "$dir/run" >/dev/null
    apps+=("$dir/apps/app-$i")
  done
  PICKERD_TEST_APPS="$(IFS=:; echo "${apps[*]}")"
  export PICKERD_TEST_APPS
}
