#!/usr/bin/python3
"""The app the conformance suite runs as its "python" caller (Tests/ConformanceTests/
ClientLibraryConformance.swift): it presents through libjournalingsuggestions-1's introspection
(PyGObject) and prints, as JSON lines, everything the library handed it, as
js-conformance-client does for C.

    conformance-client.py RUNTIME_DIR present [SUGGESTION_ID] | close | cancel | repeat N
"""
import base64
import fcntl
import json
import os
import sys
import time

import gi

gi.require_version("JournalingSuggestions", "1.0")
from gi.repository import Gio, GLib  # noqa: E402
from gi.repository import JournalingSuggestions as JS  # noqa: E402

CODES = {JS.Error.NOT_ENTITLED: "notEntitled", JS.Error.NO_PICKER_AVAILABLE: "noPickerAvailable", JS.Error.BUSY: "busy",
         JS.Error.UNREACHABLE: "unreachable", JS.Error.INVALID_ARGUMENT: "invalidArgument"}
REASONS = {JS.DismissalReason.CLOSED_BY_APP: "closedByApp", JS.DismissalReason.PICKER_GONE: "pickerGone",
           JS.DismissalReason.SHUTDOWN: "shutdown", JS.DismissalReason.CONSENT_DECLINED: "consentDeclined"}
KINDS = {JS.OutcomeKind.APPROVED: "approved", JS.OutcomeKind.CANCELLED: "cancelled", JS.OutcomeKind.DISMISSED: "dismissed"}


def error_line(error):
    if error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED):
        code = "cancelled"
    elif error.domain == GLib.quark_to_string(JS.error_quark()):
        code = CODES.get(JS.Error(error.code), "failed")
    else:
        code = "failed"
    return {"event": "error", "code": code, "message": error.message}


def outcome_line(outcome):
    line = {"event": "outcome", "result": KINDS[outcome.get_kind()]}
    if outcome.get_kind() == JS.OutcomeKind.DISMISSED:
        line["reason"] = REASONS.get(outcome.get_dismissal_reason(), "other")
    suggestion = outcome.get_suggestion()
    if suggestion is None:
        return line
    raw = bytearray(suggestion.get_title().encode())
    items, descriptors = [], []
    for item in suggestion.get_items():
        fields = item.get_fields()
        raw += f"\n{item.get_id()} {item.get_kind_name()} {fields.print_(True)}\n".encode()
        raw += fields.get_data_as_bytes().get_data()
        items.append({"id": item.get_id(), "kind": item.get_kind_name()})
        # The item's local time, only when the library has one (pickerd sends it only with a kept place).
        has_offset, offset = item.get_utc_offset()
        if has_offset:
            items[-1]["utcOffset"] = str(offset)  # text, as every field of an item is
        for media in item.get_media():
            data = media.read_bytes().get_data()
            fd = media.get_fd()
            writable = (fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE) != os.O_RDONLY
            try:
                writable = writable or os.pwrite(fd, b"x", 0) == 1
            except OSError:
                pass
            raw += f"\n{media.get_role()} {media.get_content_type()} {media.get_filename()}".encode()
            descriptors.append({"role": media.get_role(), "writable": writable, "link": os.readlink(f"/proc/self/fd/{fd}"),
                                "base64": base64.b64encode(data).decode()})
    line.update(title=suggestion.get_title(), items=items, descriptors=descriptors, raw=base64.b64encode(bytes(raw)).decode())
    return line


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: conformance-client.py RUNTIME_DIR present [ID] | close | cancel | repeat N")
    runtime, mode = sys.argv[1], sys.argv[2]
    loop = GLib.MainLoop()
    picker = JS.Picker(runtime_dir=runtime, button_title="Add to Conformance")
    cancellable = Gio.Cancellable()
    remaining = [int(sys.argv[3]) if mode == "repeat" and len(sys.argv) > 3 else 1]
    took, status = [], [0]

    def start():
        started = time.monotonic()
        token = sys.argv[3] if mode == "present" and len(sys.argv) > 3 else None
        picker.present(None, token, cancellable, lambda p, r: done(p, r, started))
        if mode == "close":
            picker.close()

    def done(source, result, started):
        try:
            outcome = source.present_finish(result)
        except GLib.Error as error:
            if mode == "repeat":
                status[0] = 1
                loop.quit()
                return
            print(json.dumps(error_line(error)), flush=True)
            loop.quit()
            return
        if mode == "repeat":
            took.append(time.monotonic() - started)
            if outcome.get_kind() != JS.OutcomeKind.APPROVED:
                status[0] = 1
                loop.quit()
                return
            remaining[0] -= 1
            if remaining[0] > 0:
                start()
                return
            print(json.dumps({"event": "timings", "seconds": took}), flush=True)
        else:
            print(json.dumps(outcome_line(outcome)), flush=True)
        loop.quit()

    # "cancel": once pickerd accepted (the picker is shown), cancel the GCancellable.
    picker.connect("accepted", lambda _picker: cancellable.cancel() if mode == "cancel" else None)
    start()
    loop.run()
    return status[0]


if __name__ == "__main__":
    sys.exit(main())
