# The main window: its tabs and its bottom row.

tab-flock = Flock
tab-chat = Chat
tab-agents = Agents
tab-rules = Rules
tab-policies = Policies
tab-history = History
tab-hosts = Hosts
tab-phone = Phone
tab-notifications = Notifications
tab-general = General
pause-cards = Pause cards
pause-cards-hover = While paused, no card comes up: agents ask in their own terminal, and each request says so on its bird and in History
cards-paused-line = Cards paused: agents ask in their terminal
