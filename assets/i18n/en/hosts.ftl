# Settings → Hosts: agents on SSH hosts (docs/hosts.md).

hosts-title = Hosts
hosts-intro = Agents on SSH hosts ask here too: their cards and birds show host:folder, and an Always rule made for a host's folder answers only that host. Vults uses your own ssh (~/.ssh/config, agents and keys work as usual). While a link is down, the host's agents ask in their own terminal.
hosts-none = No hosts yet.
hosts-remove = Remove
hosts-remove-hover = Take Vults out of this host's agents and forget it
hosts-forget = Forget
hosts-forget-hover = Forget this host, touching nothing on it (its agents keep the hook, which is silent without a link)
hosts-add = Add
hosts-host = Host
hosts-ssh-options = ssh options
hosts-ssh-options-hint = ssh options (optional)
hosts-add-host = Add host
hosts-failed = Failed: { $what }
