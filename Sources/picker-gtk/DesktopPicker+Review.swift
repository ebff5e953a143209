import CPickerWindow
import Foundation
import PickerKit
import PickerdTransport
import PickerdWire

extension DesktopPicker {
    func buildReview(_ root: OpaquePointer, _ window: OpaquePointer) {
        let suggestion = session.suggestion
        let titleRow = pw_box(0, 10)!
        widgets.titleRow = titleRow
        pw_append(root, titleRow)
        fillTitleRow()
        let summary = label("", 3)
        widgets.summary = summary
        pw_append(root, summary)

        let body = pw_box(0, 18)!
        pw_expand(body, 1, 1)
        let carousel = pw_box(1, 8)!
        pw_size(carousel, 400, -1)
        widgets.carousel = carousel
        pw_append(body, carousel)

        let items = pw_list(Control.itemList.rawValue, "All items")!
        // A click shows the item; its check (or Space, or a double click) keeps or leaves it out.
        pw_list_single_click(items, 0)
        pw_expand(items, 1, 1)
        for (index, item) in suggestion.items.enumerated() {
            let row = pw_box(1, 2)!
            pw_margins(row, 4, 6, 4, 6)
            let check = pw_check("\(PickerWords.glyph(item)) \(item.asset?.summary ?? "")", 1, Control.itemBase + Int32(index))!
            // The row takes the focus: ↑/↓ move through the items, Space keeps or leaves one out.
            pw_focusable(check, 0)
            pw_append(row, check)
            let note = label("", 4)
            pw_margins(note, 0, 0, 0, 28)
            pw_append(row, note)
            widgets.itemChecks.append(check)
            widgets.itemNotes.append(note)
            pw_list_append(items, row, "\(PickerWords.kindLabel(item)): \(item.asset?.summary ?? "")")
        }
        widgets.lists = [items]
        pw_append(body, items)
        pw_append(root, body)

        let message = label("", 5)
        widgets.message = message
        pw_append(root, message)
        let back = pw_button("_Back", 0, Control.back.rawValue)!
        let cancel = pw_button("_Cancel", 0, Control.cancel.rawValue)!
        let add = pw_button("_\(session.addTitle)", 1, Control.add.rawValue)!
        widgets.add = add
        let hide = pw_button("_Hide This Suggestion", 3, Control.hide.rawValue)!
        pw_accessible(hide, nil, "It won't be suggested again; you can undo it")
        let fewer = pw_button("Show _Fewer Like This…", 3, Control.fewer.rawValue)!
        pw_accessible(fewer, nil, "Leave out one of its people, its place or its days")
        pw_append(root, buttonRow([cancel, add], leading: [back, hide, fewer]))
        refreshItems()  // and the carousel
        if !suggestion.items.isEmpty { pw_list_select(items, Int32(itemIndex), 1) }
        // Every item's preview, the one on screen first, so each line says whether it can still be added.
        for item in suggestion.items where PickerWords.imageMedia(item) != nil { want(item.id) }
    }

    /// "Name this place": what the place is called now, an entry for the person's name, and what naming does.
    func buildNamePlace(_ root: OpaquePointer) {
        pw_append(root, label(PickerWords.namePlace, 1))
        pw_append(root, label(naming?.label ?? PickerWords.thisPlace, 2))
        let entry = pw_entry("", "What you call this place", Control.placeEntry.rawValue)!
        widgets.entry = entry
        pw_append(root, entry)
        firstFocus = entry
        pw_append(root, label(PickerWords.namePlaceExplanation, 3))
        let message = label("", 5)
        widgets.message = message
        pw_append(root, message)
        spacer(root)
        pw_append(root, buttonRow([pw_button("_Back", 0, Control.back.rawValue)!, pw_button("_Name", 1, Control.placeDone.rawValue)!]))
    }

    /// "Show fewer like this": a button per person, place and the days, and what hiding does.
    func buildFewer(_ root: OpaquePointer) {
        pw_append(root, label(PickerWords.showFewer, 1))
        pw_append(root, label(session.title, 2))
        pw_append(root, label(PickerWords.fewerExplanation))
        for (index, option) in fewerOptions.enumerated() {
            let button = pw_button(option.label, 0, Control.fewerBase + Int32(index))!
            pw_align(button, 1, 0)
            pw_append(root, button)
            if index == 0 { firstFocus = button }
        }
        pw_append(root, label(PickerWords.hideExplanation, 3))
        let message = label("", 5)
        widgets.message = message
        pw_append(root, message)
        spacer(root)
        pw_append(root, buttonRow([pw_button("_Back", 0, Control.back.rawValue)!]))
    }

    private func fillTitleRow() {
        guard let row = widgets.titleRow else { return }
        pw_clear(row)
        widgets.entry = nil
        if editingTitle {
            let entry = pw_entry(session.title, "Title", Control.titleEntry.rawValue)!
            pw_expand(entry, 1, 0)
            widgets.entry = entry
            pw_append(row, entry)
            pw_append(row, pw_button("_Done", 0, Control.titleDone.rawValue))
            pw_focus(entry)
        } else {
            let title = label(session.title, 1)
            pw_expand(title, 1, 0)
            pw_append(row, title)
            let edit = pw_button("_Edit Title", 3, Control.editTitle.rawValue)!
            pw_accessible(edit, nil, "Change the title the entry gets")
            pw_append(row, edit)
        }
    }

    func editTitle(_ editing: Bool) {
        editingTitle = editing
        fillTitleRow()
        if !editing, let list = widgets.lists.first { pw_list_select(list, Int32(itemIndex), 1) }
        markDrawn()
    }

    /// The checks, notes, counts and the Add button, as the session stands.
    func refreshItems() {
        guard screen == .review else { return }
        let suggestion = session.suggestion
        for (index, item) in suggestion.items.enumerated() where widgets.itemChecks.indices.contains(index) {
            pw_check_set(widgets.itemChecks[index], session.kept[index] ? 1 : 0)
            let reason = session.unavailable[item.id]
            pw_sensitive(widgets.itemChecks[index], reason == nil ? 1 : 0)
            let note = reason.map { "left out: \($0)" } ?? PickerWords.details(item, utcOffsetSeconds: suggestion.localUtcOffsetS).dropFirst().first ?? ""
            pw_label_set(widgets.itemNotes[index], note)
        }
        let unavailable = suggestion.items.filter { session.unavailable[$0.id] != nil }.count
        if let summary = widgets.summary {
            pw_label_set(summary, "\(PickerWords.range(of: suggestion))  ·  keeping \(session.keptCount) of \(suggestion.items.count)"
                         + (unavailable > 0 ? "  ·  \(unavailable) cannot be added" : ""))
        }
        if let add = widgets.add { pw_sensitive(add, session.keptCount > 0 ? 1 : 0) }
        fillCarousel()
    }

    func select(item index: Int, moveList: Bool = false) {
        let items = session.suggestion.items
        guard items.indices.contains(index) else { return }
        itemIndex = index
        if moveList, let list = widgets.lists.first { pw_list_select(list, Int32(index), 0) }
        if PickerWords.imageMedia(items[index]) != nil { want(items[index].id, urgent: true) }
        fillCarousel()
    }

    /// The carousel: the item's picture (a photo, a Live Photo's still, a clip's first frame, a
    /// contact's photo, artwork, a route), where it stands, what it is, and whether it will be added.
    func fillCarousel() {
        guard let carousel = widgets.carousel else { return }
        pw_clear(carousel)
        let items = session.suggestion.items
        guard items.indices.contains(itemIndex) else { return }
        let item = items[itemIndex]
        let kind = PickerWords.kindLabel(item)
        let summary = item.asset?.summary ?? ""
        let picture: OpaquePointer
        if PickerWords.imageMedia(item) != nil {
            picture = self.picture(item.id, width: 400, height: 300, alternative: "\(kind): \(summary)", glyph: PickerWords.glyph(item))
        } else if let route = Self.route(item, width: 400, height: 300) {
            picture = route
        } else {
            picture = pw_glyph(PickerWords.glyph(item), 400, 300, kind)
        }
        pw_class(picture, "pw-carousel")
        pw_append(carousel, picture)
        let navigation = pw_box(0, 8)!
        let previous = pw_button("‹ _Previous", 3, Control.previous.rawValue)!
        pw_sensitive(previous, itemIndex > 0 ? 1 : 0)
        let next = pw_button("_Next ›", 3, Control.next.rawValue)!
        pw_sensitive(next, itemIndex < items.count - 1 ? 1 : 0)
        let position = label("\(itemIndex + 1) of \(items.count)  ·  \(kind)", 2, centered: true)
        pw_expand(position, 1, 0)
        pw_append(navigation, previous)
        pw_append(navigation, position)
        pw_append(navigation, next)
        pw_append(carousel, navigation)
        for detail in PickerWords.details(item, utcOffsetSeconds: session.suggestion.localUtcOffsetS) { pw_append(carousel, label(detail)) }
        let reason = session.unavailable[item.id]
        let status = session.kept[itemIndex] ? "✓ will be added" : reason.map { "✗ left out: \($0), so it cannot be added" } ?? "✗ left out"
        pw_append(carousel, label(status, session.kept[itemIndex] ? 3 : 5))
        if case .reflection? = item.asset {
            pw_append(carousel, pw_button("Another _Prompt", 0, Control.anotherPrompt.rawValue))
        }
        if session.nameablePlaces.contains(where: { $0.index == itemIndex }) {
            let name = pw_button("Name This P_lace…", 0, Control.namePlace.rawValue)!
            pw_accessible(name, nil, PickerWords.namePlaceExplanation)
            pw_append(carousel, name)
        }
    }
}
