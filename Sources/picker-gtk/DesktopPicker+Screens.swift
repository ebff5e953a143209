import CPickerWindow
import Foundation
import PickerKit
import PickerdTransport
import PickerdWire

extension DesktopPicker {
    // MARK: Screens

    func openWindow() {
        guard window == nil else { return }
        let title = "\(session.review.appDisplayName) — Journaling Suggestions"
        let created = pw_window(title, 940, 660, Control.window.rawValue)!
        window = created
        if trace.isOn { pw_window_report_keys(created, Control.window.rawValue) }
        if !session.review.parentWindow.isEmpty {
            if pw_window_set_parent(created, session.review.parentWindow) == 0 {
                log("shown over the app's window \(session.review.parentWindow)")
            } else {
                log("the app's window \(session.review.parentWindow) is not one this display has; shown on its own")
            }
        }
        pw_window_present(created)
        log("window 0x\(String(pw_window_xid(created), radix: 16)) on \(String(cString: pw_display_name())) for \(session.review.appDisplayName)")
    }

    func show(_ next: Screen) {
        guard let window else { return }
        screen = next
        widgets = Widgets()
        let root = pw_box(1, 12)!
        pw_margins(root, 18, 24, 18, 24)
        switch next {
        case .waiting: buildWaiting(root)
        case .approval: buildApproval(root, window)
        case .consent: buildConsent(root, window)
        case .customize: buildCustomize(root, window)
        case .about: buildPage(root, window, "About Journaling Suggestions", PickerWords.aboutText)
        case .learnMore: buildPage(root, window, "Your privacy", PickerWords.privacyText(app: session.review.appDisplayName, on: .window))
        case .lists: buildLists(root, window)
        case .review: buildReview(root, window)
        case .fewer: buildFewer(root)
        case .namePlace: buildNamePlace(root)
        }
        pw_window_set_child(window, root)
        focusFirst()
        trace.note("built", screenName)
        markDrawn()
    }

    /// What the screen is called where it is marked drawn: its name, and "review-title" while the
    /// title is edited.
    private var screenName: String {
        switch screen {
        case .waiting: "waiting"
        case .approval: "approval"
        case .consent: "consent"
        case .customize: "customize"
        case .about: "about"
        case .lists: "lists"
        case .learnMore: "learn-more"
        case .review: editingTitle ? "review-title" : "review"
        case .fewer: "fewer"
        case .namePlace: "name-place"
        }
    }

    /// Once the window has painted what was just built, it says so: the X11 property
    /// `_PICKERD_SCREEN` becomes "<count> <screen>" (the demo and the tests press the next key only
    /// then), and the trace notes it.
    func markDrawn() {
        guard let window else { return }
        shownCount += 1
        pw_window_mark_drawn(window, "\(shownCount) \(screenName)", Control.window.rawValue)
    }

    private func focusFirst() {
        if let firstFocus { pw_focus(firstFocus) }
        firstFocus = nil
    }

    func label(_ text: String, _ style: Int32 = 0, centered: Bool = false) -> OpaquePointer {
        pw_label(text, style, centered ? 1 : 0)!
    }

    /// A row of buttons at the end of the page.
    func buttonRow(_ buttons: [OpaquePointer], leading: [OpaquePointer] = []) -> OpaquePointer {
        let row = pw_box(0, 8)!
        for button in leading { pw_append(row, button) }
        let spacer = pw_box(0, 0)!
        pw_expand(spacer, 1, 0)
        pw_append(row, spacer)
        for button in buttons { pw_append(row, button) }
        return row
    }

    func spacer(_ root: OpaquePointer) {
        let fill = pw_box(1, 0)!
        pw_expand(fill, 0, 1)
        pw_append(root, fill)
    }

    private func buildWaiting(_ root: OpaquePointer) {
        let box = pw_box(1, 12)!
        pw_align(box, 3, 3)
        pw_expand(box, 1, 1)
        // No spinner: an animation is painted again and again, and on a busy machine without a GPU
        // that painting takes the CPU the next screen needs. The wait is short.
        pw_append(box, label("One moment…", 3, centered: true))
        pw_append(root, box)
    }

    private func buildApproval(_ root: OpaquePointer, _ window: OpaquePointer) {
        let review = session.review
        let app = review.appDisplayName
        pw_append(root, label("Allow \(app)?", 1))
        let origin = review.appOrigin.isEmpty ? "" : " — \(review.appOrigin) —"
        pw_append(root, label("\(app)\(origin) wants to show you journaling suggestions.", 2))
        pw_append(root, label(PickerWords.approvalText(app: app, kind: review.appKind)))
        pw_append(root, label("If you allow it, \(app) may open this picker from now on, until you revoke it (pickerctl apps revoke). It still receives only what you choose to add.", 3))
        if !review.appBundleId.isEmpty { pw_append(root, label("App id: \(review.appBundleId)", 4)) }
        spacer(root)
        let deny = pw_button("_Don't Allow", 0, Control.deny.rawValue)!
        let allow = pw_button("_Allow", 0, Control.allow.rawValue)!
        pw_append(root, buttonRow([deny, allow]))
        // Where it starts: an Enter pressed without reading allows nothing.
        pw_default(window, deny)
        firstFocus = deny
    }

    private func buildConsent(_ root: OpaquePointer, _ window: OpaquePointer) {
        pw_append(root, label("Journaling Suggestions", 1))
        pw_append(root, label("\(session.review.appDisplayName) would like to show you suggestions for your journal, made on this device from your photos, workouts, places, music, contacts and moods."))
        pw_append(root, label("Suggestions stay on this device. An app receives only what you choose to add, and only when you add it.", 3))
        spacer(root)
        let turnOn = pw_button("_Turn On", 1, Control.turnOn.rawValue)!
        let customize = pw_button("_Customize", 0, Control.customize.rawValue)!
        let about = pw_button("A_bout", 3, Control.about.rawValue)!
        let notNow = pw_button("_Not Now", 0, Control.notNow.rawValue)!
        pw_append(root, buttonRow([notNow, customize, turnOn], leading: [about]))
        pw_default(window, turnOn)
        firstFocus = turnOn
    }

    private func buildCustomize(_ root: OpaquePointer, _ window: OpaquePointer) {
        pw_append(root, label("Customize Journaling Suggestions", 1))
        pw_append(root, label("Choose what suggestions may be made from:"))
        for (index, setting) in categories.enumerated() {
            let check = pw_check(PickerWords.categoryLabel(setting.category), setting.enabled ? 1 : 0, Control.categoryBase + Int32(index))!
            pw_append(root, check)
            if index == 0 { firstFocus = check }
        }
        spacer(root)
        let back = pw_button("_Back", 0, Control.back.rawValue)!
        let turnOn = pw_button("_Turn On", 1, Control.turnOnCustomized.rawValue)!
        pw_append(root, buttonRow([back, turnOn]))
        pw_default(window, turnOn)
    }

    private func buildPage(_ root: OpaquePointer, _ window: OpaquePointer, _ heading: String, _ text: String) {
        pw_append(root, label(heading, 1))
        let body = pw_box(1, 10)!
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: true) {
            pw_append(body, label(String(paragraph)))
        }
        let scrolled = pw_scrolled(body, 1)!
        pw_expand(scrolled, 1, 1)
        pw_append(root, scrolled)
        let back = pw_button("_Back", 1, Control.back.rawValue)!
        pw_append(root, buttonRow([back]))
        pw_default(window, back)
        firstFocus = back
    }

    private func buildLists(_ root: OpaquePointer, _ window: OpaquePointer) {
        let app = session.review.appDisplayName
        if session.showsBanner {
            let banner = pw_box(0, 10)!
            pw_class(banner, "pw-banner")
            let text = label("\(app) gets only what you choose to add.")
            pw_expand(text, 1, 0)
            pw_append(banner, text)
            pw_append(banner, pw_button("_Learn More", 3, Control.learnMore.rawValue))
            let dismiss = pw_button("Dismiss", 3, Control.dismissBanner.rawValue)!
            pw_accessible(dismiss, nil, "Hides this banner from now on")
            pw_append(banner, dismiss)
            pw_append(root, banner)
        }
        if !notice.isEmpty {
            let row = pw_box(0, 10)!
            pw_class(row, "pw-banner")
            let text = label(notice)
            pw_expand(text, 1, 0)
            pw_append(row, text)
            if session.lastHidden != nil { pw_append(row, pw_button("_Undo", 0, Control.undo.rawValue)) }
            pw_append(root, row)
        }
        let stack = pw_stack(Control.tabs.rawValue)!
        widgets.stack = stack
        let switcher = pw_stack_switcher(stack)!
        pw_align(switcher, 3, 0)
        pw_append(root, switcher)
        for list in ReviewSession.List.allCases {
            let id = list == .recommended ? Control.recommendedList : Control.recentList
            let name = list == .recommended ? "Recommended" : "Recent"
            let view = pw_list(id.rawValue, "\(name) suggestions")!
            widgets.lists.append(view)
            let page = pw_box(1, 0)!
            pw_append(page, view)
            widgets.listPages.append(page)
            pw_stack_add(stack, page, name.lowercased(), "\(name) (\(session.totals[list.rawValue]))")
            for suggestion in session.loaded[list.rawValue].prefix(Self.firstRows) { appendRow(suggestion, to: view) }
        }
        pw_stack_show(stack, tab == .recommended ? "recommended" : "recent")
        pw_append(root, stack)
        // Nothing at all: why, and what to do (the same words in every picker).
        if let reason = session.emptyListsReason { pw_append(root, label(reason)) }
        let cancel = pw_button("_Cancel", 0, Control.cancel.rawValue)!
        pw_append(root, buttonRow([cancel]))
        let current = widgets.lists[tab.rawValue]
        if pw_list_count(current) > 0 {
            pw_list_select(current, 0, 1)
        } else {
            firstFocus = cancel
        }
    }

    /// A suggestion's row: its picture, title, dates and what it holds.
    private func appendRow(_ suggestion: Suggestion, to list: OpaquePointer) {
        let row = pw_box(0, 12)!
        pw_margins(row, 6, 6, 6, 6)
        let holder = pw_box(0, 0)!
        pw_size(holder, 72, 72)
        pw_class(holder, "pw-thumb")
        let pictured = suggestion.items.first { PickerWords.imageMedia($0) != nil }
        if let pictured {
            pw_append(holder, picture(pictured.id, width: 72, height: 72, alternative: "picture", glyph: PickerWords.glyph(pictured)))
            widgets.thumbnails[pictured.id, default: []].append(holder)
            want(pictured.id)
        } else if let workout = suggestion.items.lazy.compactMap({ Self.route($0) }).first {
            pw_append(holder, workout)
        } else {
            pw_append(holder, pw_glyph(suggestion.items.first.map(PickerWords.glyph) ?? "•", 72, 72, "no picture"))
        }
        pw_append(row, holder)
        let text = pw_box(1, 2)!
        pw_align(text, 0, 3)
        pw_expand(text, 1, 0)
        let range = PickerWords.range(of: suggestion), contents = PickerWords.contents(suggestion.items)
        // The title, its dates and its contents, one line each: a wrapping label is laid out again
        // for every width GTK tries while it sizes the list, its text shaped each time.
        for (line, style) in [(suggestion.title, Int32(2)), (range, 3), (contents, 4)] {
            let widget = label(line, style)
            pw_label_single_line(widget)
            pw_append(text, widget)
        }
        pw_append(row, text)
        pw_list_append(list, row, "\(suggestion.title), \(range), \(contents)")
    }

    /// How many rows a list is built with: about a screenful. The rest are added after the screen is
    /// drawn, `rowsAtOnce` at a time, with the person's keys taken in between.
    static let firstRows = 10
    static let rowsAtOnce = 8

    /// Adds a few more of the rows loaded but not shown yet, and asks to be called again while any
    /// are left.
    func appendMoreRows() {
        guard screen == .lists else { return }
        var left = false
        for list in ReviewSession.List.allCases where widgets.lists.indices.contains(list.rawValue) {
            let view = widgets.lists[list.rawValue]
            let shown = Int(pw_list_count(view))
            for suggestion in session.loaded[list.rawValue].dropFirst(shown).prefix(Self.rowsAtOnce) { appendRow(suggestion, to: view) }
            left = left || Int(pw_list_count(view)) < session.loaded[list.rawValue].count
        }
        if left { pw_wake(Control.moreRows.rawValue) }
    }

    /// The rows a page brought.
    func appendRows(_ list: ReviewSession.List) {
        guard let stack = widgets.stack, widgets.lists.indices.contains(list.rawValue) else { return }
        let view = widgets.lists[list.rawValue]
        let shown = Int(pw_list_count(view))
        for suggestion in session.loaded[list.rawValue].dropFirst(shown) { appendRow(suggestion, to: view) }
        let name = list == .recommended ? "Recommended" : "Recent"
        pw_stack_set_title(stack, widgets.listPages[list.rawValue], "\(name) (\(session.totals[list.rawValue]))")
    }

    /// A workout's route, drawn without a map, when it has one.
    static func route(_ item: Item, width: Int32 = 72, height: Int32 = 72) -> OpaquePointer? {
        guard case .workout(let workout)? = item.asset, workout.route.count >= 2 else { return nil }
        let latitudes = workout.route.map(\.latitude), longitudes = workout.route.map(\.longitude)
        return pw_route(latitudes, longitudes, Int32(latitudes.count), width, height, "the route of \(item.asset?.summary ?? "a workout")")
    }
}
