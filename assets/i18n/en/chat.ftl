# Zeca, the chat: the window's fixed words around a conversation. What the person and the agent
# wrote, folder names, agent names and commands are arguments.

chat-new = New chat
chat-conversation = Conversation
chat-start-new = Start a new chat
chat-engine = Engine
chat-folder = Folder
chat-folder-hint = /path/to/project
chat-message = Message
# $agent: "Claude Code".
chat-message-hint = Message { $agent } (Ctrl+Enter sends)
chat-needs-folder = Send needs a folder: type the project's folder in Folder above
chat-send = Send
chat-type-folder = Type the folder the agent works in, above
chat-type-message = Type a message first
chat-stop = Stop
chat-stop-hover = Ends the turn: { $agent } stops; the next message resumes
chat-more-above = more above ↑
chat-empty = Pick a folder and say what to do. Claude Code (or Codex) runs there with your own settings; what it wants to do asks here.
chat-untitled = a chat
# The picker: when a conversation was last active.
chat-ago-just-now = just now
chat-ago-minutes = { $count } min ago
chat-ago-hours = { $count } h ago
chat-ago-yesterday = yesterday
chat-ago-days = { $count ->
    [one] 1 day ago
   *[other] { $count } days ago
}
chat-asks-you = asks you
chat-working = working
chat-from-zeca = from Zeca · { $title }
chat-open = Open this chat

## Tasks.
chat-start-task = Start a task…
chat-start-task-hover = An agent session of its own, in your terminal or headless
chat-task-folder = Task folder
chat-task-prompt = Task prompt
chat-agent = Agent
chat-headless = Headless
chat-systems-terminal = the system's terminal
chat-start-task-headless = Start task (headless)
chat-start-task-in = Start task (in { $terminal })
chat-task = Task { $id } · { $agent } in { $folder }
chat-task-terminal-hover = Bring the task's terminal window and pane forward
chat-task-show-terminal = Show terminal of task { $id }
chat-task-showing-terminal = Showing terminal of task { $id }
# A task's bird in the flock.
chat-flock-waiting = in the flock: waiting for you
chat-flock-done = in the flock: done — waiting for you
chat-flock-asks-in-terminal = in the flock: asks in its terminal
chat-flock-working = in the flock: working
chat-flock-idle = in the flock: idle
chat-flock-ended = in the flock: ended
chat-flock-left = left the flock
chat-flock-not = not in the flock
chat-flock-not-yet = not in the flock yet

## Chat settings.
chat-settings = Chat settings…
chat-binary = { $agent } binary
chat-binary-hint = found on PATH
chat-terminal-for-tasks = Terminal for tasks
chat-terminal-hint = detected (e.g. kitty -e)
chat-save-settings = Save chat settings

## A tool row's mark: what happened to the agent's call. $by says who answered ("by you").
chat-mark-stopped = stopped
chat-mark-denied = denied { $by }
chat-mark-withdrawn = not answered (withdrawn)
chat-mark-failed = failed
chat-mark-answered = answered
chat-mark-ran-allowed = ran · allowed { $by }
chat-mark-ran = ran
chat-mark-no-result = no result
chat-mark-asks = asks
chat-mark-allowed-running = allowed — running
chat-mark-allowed-by-running = allowed { $by } — running
chat-mark-running = running

## A conversation's title when no message names it, and a task's state.
chat-title-task = task: { $prompt }
chat-title-task-bare = task
chat-task-running = running
chat-task-opened = opened in the terminal
chat-task-headless = running headless (log { $log })
# $status: the exit status, as the process gave it.
chat-task-ended = ended ({ $status })
chat-task-could-not-start = could not start: { $why }
