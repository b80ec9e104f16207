# The engine's notices, in the window's bottom row (the log keeps them in English). $why, $error
# and $line are what a reader, the system or vults-core said, as they said it; $rule is an Always
# rule's id, $card a card's number, $path a file, $kind a hook protocol message's type, $uid,
# $pid and $me numbers the system gives.

engine-rule-dropped = A rule was dropped at load: { $why }
engine-rules-not-loaded = Always rules not loaded: { $why }. New rules will hold until Vults quits and the file will not be touched
# Making Vults' own folders private at start: $path a file or folder, $was and $now its modes
# in octal (644, 600), $error the system's words.
engine-private-tightened = { $path } was readable by others ({ $was }); made it private ({ $now })
engine-private-failed = Cannot make { $path } private: { $error }
engine-no-such-rule = No Always rule { $rule } to remove
engine-card-gone = Card { $card } is no longer waiting (answered, or the agent went away)
engine-not-a-question = Card { $card } asks for a permission, not for answers
engine-no-always = Card { $card } has no Always (a destructive call or a question); answer it once
engine-rules-kept-in-memory = The rules file could not be read at start, so it is not overwritten; this change holds until Vults quits
engine-rules-not-saved = Cannot save the Always rules to { $path }: { $error }
engine-refused-message = Refused a "{ $kind }" message on the hook socket: only an event may come from there
engine-refused-user = Refused a connection from uid { $uid } (this app runs as uid { $me })
engine-refused-user-pid = Refused a connection from uid { $uid } (pid { $pid }) (this app runs as uid { $me })
engine-refused-unknown-user = Refused a connection whose user cannot be read
engine-refused-unreadable = Refused a connection whose credentials cannot be read: { $error }
