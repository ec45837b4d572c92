package link

import (
	"bufio"
	"os"
	"strings"
)

// InstallHint says how to install Podman on this system.
func InstallHint() string {
	id := osRelease()
	switch {
	case id["ID"] == "debian" || id["ID"] == "ubuntu" || strings.Contains(id["ID_LIKE"], "debian"):
		return "install it with `sudo apt-get install podman`"
	case id["ID"] == "fedora" || strings.Contains(id["ID_LIKE"], "fedora") || strings.Contains(id["ID_LIKE"], "rhel"):
		return "install it with `sudo dnf install podman`"
	case id["ID"] == "arch" || strings.Contains(id["ID_LIKE"], "arch"):
		return "install it with `sudo pacman -S podman`"
	case strings.Contains(id["ID"], "opensuse") || strings.Contains(id["ID_LIKE"], "suse"):
		return "install it with `sudo zypper install podman`"
	case id["ID"] == "alpine":
		return "install it with `sudo apk add podman`"
	}
	return "install Podman 4 or newer from your distribution's packages (see https://podman.io/docs/installation)"
}

func osRelease() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok {
			out[k] = strings.Trim(v, `"'`)
		}
	}
	return out
}
