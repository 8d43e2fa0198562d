package oca

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/kolo/xmlrpc"
)

// DefaultEndpoint is oned's default XML-RPC address.
const DefaultEndpoint = "http://localhost:2633/RPC2"

// maxResponse bounds how much of an answer is read (a large VM pool is a
// few MB).
const maxResponse = 256 << 20

// OneConfig is what a client needs: the endpoint and the credentials
// (goca: OneConfig{Token, Endpoint}).
type OneConfig struct {
	Credentials Credentials
	Endpoint    string
}

// NewConfig builds a OneConfig from explicit credentials (goca's
// NewConfig(user, password, endpoint)); an empty endpoint means
// DefaultEndpoint.
func NewConfig(user, password, endpoint string) OneConfig {
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	return OneConfig{Credentials: Credentials{User: user, Password: password}, Endpoint: endpoint}
}

// Client calls oned's XML-RPC API. It is safe for concurrent use.
type Client struct {
	conf OneConfig
	http *http.Client
}

// NewClient returns a client using httpClient (nil: a new default one).
func NewClient(conf OneConfig, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	return &Client{conf: conf, http: httpClient}
}

// NewDefaultClient returns a client with a default HTTP client.
func NewDefaultClient(conf OneConfig) *Client { return NewClient(conf, nil) }

// Endpoint is the URL the client calls.
func (c *Client) Endpoint() string { return c.conf.Endpoint }

// User is the user the client logs in as.
func (c *Client) User() string { return c.conf.Credentials.User }

// CloseIdleConnections releases idle keep-alive connections.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// Response is a successful OpenNebula answer: [true, body, 0].
type Response struct {
	body    string
	bodyInt int
	isInt   bool
}

// Body is the answer's string (an XML document for info calls).
func (r *Response) Body() string { return r.body }

// BodyInt is the answer's integer (an object id for most actions).
func (r *Response) BodyInt() int { return r.bodyInt }

// CallContext calls method with the session string followed by args.
// It returns a *ResponseError for a failure answer from oned and a
// *ClientError when no well-formed answer arrived.
func (c *Client) CallContext(ctx context.Context, method string, args ...interface{}) (*Response, error) {
	params := append([]interface{}{c.conf.Credentials.session()}, args...)
	body, err := xmlrpc.EncodeMethodCall(method, params...)
	if err != nil {
		return nil, &ClientError{Code: ClientReqBuild, Msg: method, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.conf.Endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &ClientError{Code: ClientReqBuild, Msg: method, Err: err}
	}
	req.Header.Set("Content-Type", "text/xml")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &ClientError{Code: ClientReqHTTP, Msg: method, Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, &ClientError{Code: ClientRespHTTP, Msg: method, Err: err}
	}
	if resp.StatusCode/100 != 2 {
		return nil, &ClientError{Code: ClientRespHTTP, Msg: fmt.Sprintf("%s: HTTP status %s", method, resp.Status)}
	}
	return parseResponse(method, xmlrpc.Response(raw))
}

// parseResponse reads OpenNebula's response array.
func parseResponse(method string, xr xmlrpc.Response) (*Response, error) {
	if err := xr.Err(); err != nil {
		return nil, &ClientError{Code: ClientRespXMLRPCFault, Msg: method, Err: err}
	}
	var arr []interface{}
	if err := xr.Unmarshal(&arr); err != nil {
		return nil, &ClientError{Code: ClientRespXMLRPCParse, Msg: method, Err: err}
	}
	if len(arr) < 3 {
		return nil, &ClientError{Code: ClientRespONeParse, Msg: fmt.Sprintf("%s: response has %d elements, want at least 3", method, len(arr))}
	}
	ok, isBool := arr[0].(bool)
	code, isInt := arr[2].(int64)
	if !isBool || !isInt {
		return nil, &ClientError{Code: ClientRespONeParse, Msg: fmt.Sprintf("%s: response is not [bool, value, int]", method)}
	}
	if !ok {
		msg, _ := arr[1].(string)
		return nil, &ResponseError{Code: OneErrCode(code), Msg: msg}
	}
	r := &Response{}
	switch v := arr[1].(type) {
	case string:
		r.body = v
	case int64:
		r.bodyInt, r.isInt = int(v), true
		r.body = fmt.Sprint(v)
	case bool:
		r.body = fmt.Sprint(v)
	}
	return r, nil
}
