# A card: one request waiting for a person's answer (vults-app/ui/src/card/). The agent's own
# words, commands, paths and tool names are arguments, never part of a message.

## The header.
card-arrived-just-now = arrived just now
# $time: how long, as "10 s", "3 min".
card-waiting-for = waiting { $time }
card-asks-you = asks you
card-asks-to-approve-plan = asks you to approve its plan
card-plan-hover = { $who } asks to leave plan mode ({ $tool }) and carry this plan out
card-wants-to-use = wants to use
card-hidden = contains hidden characters
card-hidden-hover = Characters that show as nothing, or reorder the text around them (bidi controls, zero-width spaces, control characters), are written out where they stand, as ‹U+202E›. Copy still copies the exact text.
# $why: what made the call destructive, as command text ("git push --force").
card-destructive = DESTRUCTIVE: { $why }
card-asked-by-policy = Asked by policy { $name }
card-says = { $who } says: { $said }
card-show-terminal-hover = Bring the agent's terminal window, tab and pane forward (nothing is typed into it). Shortcut: T

## An answer that came before the card was armed (it had only just taken its place).
card-too-soon-click = Just arrived — click again in a moment
card-too-soon-key = Just arrived — press again in a moment

## The blocks the target is shown in.
card-copy = Copy
card-copy-hover = Copies the exact text, as the agent sent it
card-whole-text = Whole text
card-whole-text-hover = The exact text the agent sent, instead of the diff
card-more-lines = { $count ->
    [one] 1 more line ↓
   *[other] { $count } more lines ↓
}
card-more-hunks = { $count ->
    [one] +1 hunk
   *[other] +{ $count } hunks
}
card-more-files = { $count ->
    [one] +1 file
   *[other] +{ $count } files
}
card-more-hover = Scroll down (the Down arrow, Page Down or Space on the card that takes the keys)
card-the-end = the end ↑
card-the-end-hover = Scroll up to read it again (the mouse wheel or the scroll bar)

## What each block is. $changes reads "+3 −1".
card-block-command = command
card-block-diff = diff · { $changes }
card-block-old = old
card-block-new = new
card-block-input = input
card-block-tool-input = { $tool } input
card-block-diff-with-file = diff with the file now · { $changes }
card-lines = { $count ->
    [one] 1 line
   *[other] { $count } lines
}
card-block-new-file = new file · { $lines }
card-block-content = content · { $lines }
card-block-content-unread = content · { $lines } · the file now could not be read
card-block-url = URL
card-block-patch = patch
card-block-patch-changes = patch · { $changes }
card-block-patch-files = { $count ->
    [one] patch · { $changes }
   *[other] patch · { $count } files · { $changes }
}
card-block-mcp = MCP
card-block-questions = questions

## A permission's answers.
card-allow = Allow
card-deny = Deny
card-shortcut-a = Shortcut: A
card-shortcut-d = Shortcut: D
card-always-allow = Always allow
card-always-this-change = Always: this change
card-always-this-content = Always: this content
card-always-this-file = Always: this file
# The tooltip of an Always button; $rule is the rule's sentence.
card-always-hover = Allows, and from now on: { $rule }
card-always-hover-key = Shortcut: Shift+A. Allows, and from now on: { $rule }
# Under the answers: what each Always answers from now on.
card-always-allow-rule = Always allow: { $rule }
card-always-this-change-rule = Always this change: { $rule }
card-always-this-content-rule = Always this content: { $rule }
card-always-this-file-rule = Always this file: { $rule }
card-no-always-destructive = No Always allow: a destructive call always asks you.
# The keys line, its parts joined with " · ".
card-keys-allow-deny = Keys: A allow · D deny
card-keys-always = Shift+A always
card-keys-this-change = Shift+A this change
card-keys-this-content = Shift+A this content
card-keys-terminal = T terminal

## A plan card.
card-plan = plan
card-plan-more = more of the plan ↓
card-feedback = Feedback
card-feedback-hint = What should change? (optional, sent with Keep planning)
card-approve = Approve
card-approve-hover = The agent leaves plan mode and carries the plan out. Shortcut: A
card-keep-planning = Keep planning
card-keep-planning-hover = The agent stays in plan mode and is told your feedback (or that the plan was not approved). Shortcut: D
card-plan-no-always = No Always for a plan: each plan is yours to approve.
card-plan-keys = Keys: A approve · D keep planning · Enter sends the feedback

## A question card.
card-more-below = more below ↓
card-more-questions = { $count ->
    [one] 1 more question ↓
   *[other] { $count } more questions ↓
}
card-answer = Answer
card-answer-first = Answer every question first
card-deny-question-hover = Send no answer: the agent goes on without one
card-question-keys = Keys: 1–{ $last } choose · Enter answer · D deny
card-question-keys-no-digits = Keys: Enter answer · D deny
card-choose-any = Choose any
card-other = Other
card-other-hint = your own answer
# What a screen reader calls the free-text answer of question $number.
card-other-answer = Other answer { $number }

## A file's header in a diff ($path as the agent wrote it).
card-diff-update = update { $path }
card-diff-add = add { $path }
card-diff-delete = delete { $path }

## Cards with no room on screen, listed in the flock (the island says "+N more").
stack-more-waiting = +{ $count } more waiting — no room on screen for their cards; oldest first

# Why a card asks a person (the phone page's card says it under the answers). $what: what made
# the call destructive, as command text; $name: a policy's name; $id: a rule's id.
card-reason-destructive = destructive: { $what }
card-reason-policy = policy { $name }
card-reason-rule = rule { $id }
card-reason-no-rule = no rule
card-reason-question = a question for you
