package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"os/user"
	"strconv"
	"strings"
)

// Who is calling. On the unix socket the kernel tells the peer's uid
// (SO_PEERCRED), read once per connection; on TCP the caller must send a
// bearer token. A token sent on the socket is checked too and, when valid,
// replaces the uid identity (a gateway on the head node). A request with an
// Authorization header that does not hold a valid token is refused, never
// downgraded to the socket identity.

// Token is a bearer token the server accepts and the caller it stands for.
type Token struct {
	Token    string
	User     string
	Admin    bool // may act on any lease and on hosts
	External bool // may submit external leases (a gateway)
}

// tokenSet checks bearer tokens in constant time: it compares SHA-256
// sums (equal length) against every configured token, without stopping
// at the first match.
type tokenSet struct {
	sums   [][sha256.Size]byte
	tokens []Token
}

func newTokenSet(tokens []Token) (*tokenSet, error) {
	ts := &tokenSet{}
	seen := map[string]bool{}
	for i, t := range tokens {
		switch {
		case t.Token == "":
			return nil, fmt.Errorf("tokens[%d]: empty token", i)
		case strings.ContainsAny(t.Token, " \t\r\n"):
			return nil, fmt.Errorf("tokens[%d]: the token contains white space", i)
		case t.User == "":
			return nil, fmt.Errorf("tokens[%d]: no user", i)
		case seen[t.Token]:
			return nil, fmt.Errorf("tokens[%d]: the same token as an earlier one (user %s)", i, t.User)
		}
		seen[t.Token] = true
		ts.sums = append(ts.sums, sha256.Sum256([]byte(t.Token)))
		ts.tokens = append(ts.tokens, t)
	}
	return ts, nil
}

// match returns the token equal to tok.
func (ts *tokenSet) match(tok string) (Token, bool) {
	sum := sha256.Sum256([]byte(tok))
	found := -1
	for i := range ts.sums {
		if subtle.ConstantTimeCompare(sum[:], ts.sums[i][:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Token{}, false
	}
	return ts.tokens[found], true
}

type ctxKey int

const (
	connKey ctxKey = iota
	callerKey
)

// connInfo is what the server knows of a connection before any request.
type connInfo struct {
	unix   bool
	caller Caller // the peer, when unix and err == nil
	err    error  // why the peer is unknown on the socket
}

// connContext is the http.Server's ConnContext: it reads the peer's
// credentials of a unix connection once.
func (s *Server) connContext(ctx context.Context, c net.Conn) context.Context {
	info := &connInfo{}
	if uc, ok := c.(*net.UnixConn); ok {
		info.unix = true
		uid, err := peerUID(uc)
		if err != nil {
			info.err = err
			s.log.WithError(err).Warn("cannot read the peer's credentials on the socket")
		} else {
			info.caller = s.socketCaller(uid)
		}
	}
	return context.WithValue(ctx, connKey, info)
}

// socketCaller is the caller with this uid: its user name (the uid as a
// string when it has none) and the admin role for root and cfg.Admins.
func (s *Server) socketCaller(uid int) Caller {
	name := strconv.Itoa(uid)
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	return Caller{User: name, UID: uid, Admin: uid == 0 || s.admins[name]}
}

// authenticate says who sent r, or returns a 401.
func (s *Server) authenticate(r *http.Request) (Caller, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, _ := strings.Cut(strings.TrimSpace(h), " ")
		tok = strings.TrimSpace(tok)
		if !strings.EqualFold(scheme, "Bearer") || tok == "" {
			return Caller{}, unauthorised(`Authorization: want "Bearer TOKEN"`)
		}
		t, ok := s.tokens.match(tok)
		if !ok {
			return Caller{}, unauthorised("invalid token")
		}
		return Caller{User: t.User, UID: -1, Admin: t.Admin, External: t.External}, nil
	}
	if info, _ := r.Context().Value(connKey).(*connInfo); info != nil && info.unix {
		if info.err == nil {
			return info.caller, nil
		}
		return Caller{}, unauthorised("the peer's credentials on the socket are unknown; send a bearer token")
	}
	return Caller{}, unauthorised("authentication required: send Authorization: Bearer TOKEN")
}

func unauthorised(msg string) *httpError {
	return &httpError{status: http.StatusUnauthorized, msg: msg}
}

func withCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey, c)
}

// callerOf is the caller authenticate found; handlers run only after it.
func callerOf(r *http.Request) Caller {
	c, _ := r.Context().Value(callerKey).(Caller)
	return c
}
