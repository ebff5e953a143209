/* journal-vala: the smallest journaling app in Vala, on libjournalingsuggestions-1 through its
 * VAPI (made from the GIR; its namespace is Js, as the C prefix). It presents, and prints the approved suggestion's title and each item
 * the person kept: its kind and its fields.
 *
 *   journal-vala [RUNTIME_DIR]
 *
 * Exit status: 0 approved, 3 cancelled, 4 dismissed, 1 an error. */
int main (string[] args) {
    var loop = new MainLoop ();
    int status = 1;
    var picker = new Js.Picker ();
    picker.button_title = "Add to Journal Vala";
    picker.runtime_dir = args.length > 1 ? args[1] : null;
    picker.present.begin (null, null, null, (obj, result) => {
        try {
            var outcome = picker.present.end (result);
            if (outcome.get_kind () == Js.OutcomeKind.APPROVED) {
                var suggestion = outcome.get_suggestion ();
                print ("# %s\n", suggestion.get_title ());
                suggestion.get_items ().foreach ((item) => {
                    print ("- %s %s\n", item.get_kind_name (), item.get_fields ().print (false));
                });
                status = 0;
            } else {
                status = outcome.get_kind () == Js.OutcomeKind.CANCELLED ? 3 : 4;
            }
        } catch (Error error) {
            printerr ("journal-vala: %s\n", error.message);
        }
        loop.quit ();
    });
    loop.run ();
    return status;
}
