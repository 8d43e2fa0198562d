package oca

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrBadCredentials is returned by ParseCredentials, ReadAuthFile and
// DefaultAuthFile for credentials that cannot be used.
var ErrBadCredentials = errors.New("opennebula: bad credentials")

// Credentials are a user and a password (or token) for OpenNebula's
// "core" auth driver; the session string is "user:password". String and
// GoString redact the password, so printing or logging Credentials never
// shows it.
type Credentials struct {
	User     string
	Password string
}

// String shows the user and hides the password.
func (c Credentials) String() string { return c.User + ":<redacted>" }

// GoString hides the password from %#v.
func (c Credentials) GoString() string {
	return fmt.Sprintf("oca.Credentials{User:%q, Password:<redacted>}", c.User)
}

// session is what oned wants as the first parameter of every call.
func (c Credentials) session() string { return c.User + ":" + c.Password }

// ParseCredentials reads "user:password" (the ONE_AUTH line). The
// password may contain colons; the user may not be empty. Errors wrap
// ErrBadCredentials and never quote the password.
func ParseCredentials(s string) (Credentials, error) {
	s = strings.TrimSpace(s)
	user, pass, ok := strings.Cut(s, ":")
	if !ok || user == "" {
		return Credentials{}, fmt.Errorf("%w: want user:password", ErrBadCredentials)
	}
	if pass == "" {
		return Credentials{}, fmt.Errorf("%w: empty password for user %q", ErrBadCredentials, user)
	}
	return Credentials{User: user, Password: pass}, nil
}

// ReadAuthFile reads credentials from an ONE_AUTH file: its first line is
// "user:password". Errors name the file, never its content.
func ReadAuthFile(path string) (Credentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return Credentials{}, fmt.Errorf("%w: %v", ErrBadCredentials, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return Credentials{}, fmt.Errorf("%w: reading %s: %v", ErrBadCredentials, path, err)
		}
		return Credentials{}, fmt.Errorf("%w: %s is empty", ErrBadCredentials, path)
	}
	c, err := ParseCredentials(sc.Text())
	if err != nil {
		return Credentials{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// DefaultAuthFile is where OpenNebula's tools look for credentials: the
// file named by $ONE_AUTH, else ~/.one/one_auth.
func DefaultAuthFile() (string, error) {
	if p := os.Getenv("ONE_AUTH"); p != "" {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: no $ONE_AUTH and no home directory: %v", ErrBadCredentials, err)
	}
	return filepath.Join(home, ".one", "one_auth"), nil
}
