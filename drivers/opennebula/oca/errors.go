package oca

import (
	"errors"
	"fmt"
)

// OneErrCode is the error code in an OpenNebula response (its third
// element).
type OneErrCode int

// OpenNebula's error codes, as documented for the XML-RPC API.
const (
	OneSuccess             OneErrCode = 0x0000
	OneAuthenticationError OneErrCode = 0x0100 // the session was not accepted
	OneAuthorizationError  OneErrCode = 0x0200 // the user may not do this
	OneNoExistsError       OneErrCode = 0x0400 // no such object
	OneActionError         OneErrCode = 0x0800 // wrong state for the action
	OneXMLRPCAPIError      OneErrCode = 0x1000 // wrong parameters
	OneInternalError       OneErrCode = 0x2000 // oned failed internally
	OneAllocateError       OneErrCode = 0x4000 // the object cannot be allocated
	OneLockedError         OneErrCode = 0x8000 // the object is locked
	// OneReplicationError: in an HA (Raft) zone, the change could not be
	// replicated to a majority of the servers, or there is no leader.
	OneReplicationError OneErrCode = 0x10000
)

// String is OpenNebula's name for the code.
func (c OneErrCode) String() string {
	switch c {
	case OneSuccess:
		return "SUCCESS"
	case OneAuthenticationError:
		return "AUTHENTICATION"
	case OneAuthorizationError:
		return "AUTHORIZATION"
	case OneNoExistsError:
		return "NO_EXISTS"
	case OneActionError:
		return "ACTION"
	case OneXMLRPCAPIError:
		return "XML_RPC_API"
	case OneInternalError:
		return "INTERNAL"
	case OneAllocateError:
		return "ALLOCATE"
	case OneLockedError:
		return "LOCKED"
	case OneReplicationError:
		return "REPLICATION"
	}
	return fmt.Sprintf("0x%04x", int(c))
}

// Sentinels a *ResponseError matches with errors.Is, one per code.
var (
	// ErrAuthentication: oned did not accept the session (wrong user or
	// password).
	ErrAuthentication = errors.New("opennebula: authentication failed")
	// ErrAuthorization: the user may not perform the call.
	ErrAuthorization = errors.New("opennebula: not authorized")
	// ErrNoExists: the VM, host or pool named does not exist.
	ErrNoExists = errors.New("opennebula: no such object")
	// ErrAction: the object is in the wrong state for the call.
	ErrAction = errors.New("opennebula: action not available in this state")
	// ErrAPI: the call's parameters are wrong.
	ErrAPI = errors.New("opennebula: wrong parameters")
	// ErrInternal: oned failed internally.
	ErrInternal = errors.New("opennebula: internal error")
	// ErrReplication: an HA zone could not replicate the change (no
	// leader, or no majority); the call may be retried later.
	ErrReplication = errors.New("opennebula: replication error (HA zone without a leader or majority)")

	// ErrTemplateSyntax is returned by ParseTemplate for text that is
	// not an OpenNebula template.
	ErrTemplateSyntax = errors.New("opennebula: template syntax error")
	// ErrTemplateValue is returned by Template.Text for a value oned's
	// template parser cannot read back (one ending in a backslash that
	// is not a bare word).
	ErrTemplateValue = errors.New("opennebula: template value cannot be written")
)

var sentinelOf = map[OneErrCode]error{
	OneAuthenticationError: ErrAuthentication,
	OneAuthorizationError:  ErrAuthorization,
	OneNoExistsError:       ErrNoExists,
	OneActionError:         ErrAction,
	OneXMLRPCAPIError:      ErrAPI,
	OneInternalError:       ErrInternal,
	OneReplicationError:    ErrReplication,
}

// ResponseError is a well-formed failure answer from oned:
// [false, Msg, Code, ...]. Msg is oned's text, e.g.
// "[one.vm.action] Error getting virtual machine [42].".
type ResponseError struct {
	Code OneErrCode
	Msg  string
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("OpenNebula error [%s]: %s", e.Code, e.Msg)
}

// Is matches the sentinel of e's code.
func (e *ResponseError) Is(target error) bool {
	s, ok := sentinelOf[e.Code]
	return ok && s == target
}

// ClientErrCode says what went wrong below OpenNebula's own answer.
type ClientErrCode int

// Client error codes (goca's).
const (
	ClientReqBuild        ClientErrCode = iota // the request could not be built
	ClientReqHTTP                              // the request could not be sent
	ClientRespHTTP                             // a non-2xx HTTP status or a truncated body
	ClientRespXMLRPCFault                      // an XML-RPC fault (unknown method, wrong parameter types)
	ClientRespXMLRPCParse                      // the XML-RPC answer does not parse
	ClientRespONeParse                         // the answer is not an OpenNebula response array
)

func (c ClientErrCode) String() string {
	switch c {
	case ClientReqBuild:
		return "REQUEST_BUILD"
	case ClientReqHTTP:
		return "REQUEST_HTTP"
	case ClientRespHTTP:
		return "RESPONSE_HTTP"
	case ClientRespXMLRPCFault:
		return "RESPONSE_XMLRPC_FAULT"
	case ClientRespXMLRPCParse:
		return "RESPONSE_XMLRPC_PARSE"
	case ClientRespONeParse:
		return "RESPONSE_ONE_PARSE"
	}
	return "UNKNOWN"
}

// ClientError is returned when no well-formed OpenNebula answer arrived.
type ClientError struct {
	Code ClientErrCode
	Msg  string
	Err  error // the cause, if any
}

func (e *ClientError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("OpenNebula client error [%s]: %s: %v", e.Code, e.Msg, e.Err)
	}
	return fmt.Sprintf("OpenNebula client error [%s]: %s", e.Code, e.Msg)
}

// Unwrap returns the cause.
func (e *ClientError) Unwrap() error { return e.Err }
