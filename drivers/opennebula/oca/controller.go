package oca

import (
	"context"
	"encoding/xml"
	"errors"
)

// Controller gives access to OpenNebula's objects through a client
// (goca's Controller).
type Controller struct {
	Client *Client
}

// NewController wraps a client.
func NewController(c *Client) *Controller { return &Controller{Client: c} }

// VMController acts on one VM.
type VMController struct {
	c  *Controller
	ID int
}

// VMsController acts on the VM pool.
type VMsController struct{ c *Controller }

// HostController acts on one host.
type HostController struct {
	c  *Controller
	ID int
}

// HostsController acts on the host pool.
type HostsController struct{ c *Controller }

// VM returns a controller for VM id.
func (c *Controller) VM(id int) *VMController { return &VMController{c: c, ID: id} }

// VMs returns the VM pool's controller.
func (c *Controller) VMs() *VMsController { return &VMsController{c: c} }

// Host returns a controller for host id.
func (c *Controller) Host(id int) *HostController { return &HostController{c: c, ID: id} }

// Hosts returns the host pool's controller.
func (c *Controller) Hosts() *HostsController { return &HostsController{c: c} }

// info calls method and decodes the document it answers into a T.
func info[T any](ctx context.Context, c *Controller, method string, args ...interface{}) (*T, error) {
	resp, err := c.Client.CallContext(ctx, method, args...)
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := decode(method, resp.Body(), v); err != nil {
		return nil, err
	}
	return v, nil
}

func decode(method, body string, v interface{}) error {
	if err := xml.Unmarshal([]byte(body), v); err != nil {
		return &ClientError{Code: ClientRespONeParse, Msg: method + ": document does not parse", Err: err}
	}
	return nil
}

// handleVMArgs builds the pool filter (who, start id, end id, state)
// from goca's variadic arguments: none = mine, all ids, any state but
// DONE; (who); (who, start, end); (who, start, end, state).
func handleVMArgs(args []int) ([]interface{}, error) {
	who, start, end, state := PoolWhoMine, -1, -1, PoolStateNotDone
	switch len(args) {
	case 0:
	case 1:
		who = args[0]
	case 3:
		who, start, end = args[0], args[1], args[2]
	case 4:
		who, start, end, state = args[0], args[1], args[2], args[3]
	default:
		return nil, errors.New("oca: pool info takes (), (who), (who, start, end) or (who, start, end, state)")
	}
	return []interface{}{who, start, end, state}, nil
}

// InfoContext calls one.vmpool.info (the short VM documents).
func (vc *VMsController) InfoContext(ctx context.Context, args ...int) (*VMPool, error) {
	return vc.pool(ctx, "one.vmpool.info", args)
}

// InfoExtendedContext calls one.vmpool.infoextended (full VM documents,
// templates included).
func (vc *VMsController) InfoExtendedContext(ctx context.Context, args ...int) (*VMPool, error) {
	return vc.pool(ctx, "one.vmpool.infoextended", args)
}

func (vc *VMsController) pool(ctx context.Context, method string, args []int) (*VMPool, error) {
	fArgs, err := handleVMArgs(args)
	if err != nil {
		return nil, err
	}
	return info[VMPool](ctx, vc.c, method, fArgs...)
}

// InfoContext calls one.vm.info.
func (vc *VMController) InfoContext(ctx context.Context, decrypt bool) (*VM, error) {
	return info[VM](ctx, vc.c, "one.vm.info", vc.ID, decrypt)
}

// DeployContext calls one.vm.deploy: start the VM on hostID, in system
// datastore dsID (-1: OpenNebula chooses); enforce refuses to overcommit
// the host.
func (vc *VMController) DeployContext(ctx context.Context, hostID int, enforce bool, dsID int) error {
	_, err := vc.c.Client.CallContext(ctx, "one.vm.deploy", vc.ID, hostID, enforce, dsID)
	return err
}

// ActionContext calls one.vm.action(action, id): terminate,
// terminate-hard, suspend, resume, hold, release, poweroff, ...
func (vc *VMController) ActionContext(ctx context.Context, action string) error {
	_, err := vc.c.Client.CallContext(ctx, "one.vm.action", action, vc.ID)
	return err
}

// MigrateContext calls one.vm.migrate: move the VM to hostID, live or
// not, into system datastore dsID (-1: the current one), with
// migrationType (MigrateSave, MigratePoweroff, MigratePoweroffHard).
func (vc *VMController) MigrateContext(ctx context.Context, hostID int, live, enforce bool, dsID int, migrationType int) error {
	_, err := vc.c.Client.CallContext(ctx, "one.vm.migrate", vc.ID, hostID, live, enforce, dsID, migrationType)
	return err
}

// UpdateContext calls one.vm.update: replace or merge the user template
// with tpl (text or XML syntax).
func (vc *VMController) UpdateContext(ctx context.Context, tpl string, uType UpdateType) error {
	_, err := vc.c.Client.CallContext(ctx, "one.vm.update", vc.ID, tpl, int(uType))
	return err
}

// InfoContext calls one.hostpool.info.
func (hc *HostsController) InfoContext(ctx context.Context) (*HostPool, error) {
	return info[HostPool](ctx, hc.c, "one.hostpool.info")
}

// InfoContext calls one.host.info.
func (hc *HostController) InfoContext(ctx context.Context, decrypt bool) (*Host, error) {
	return info[Host](ctx, hc.c, "one.host.info", hc.ID, decrypt)
}

// StatusContext calls one.host.status: HostStatusEnabled,
// HostStatusDisabled or HostStatusOffline.
func (hc *HostController) StatusContext(ctx context.Context, status int) error {
	_, err := hc.c.Client.CallContext(ctx, "one.host.status", hc.ID, status)
	return err
}
