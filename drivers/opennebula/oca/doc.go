// Package oca is bora's small OpenNebula Cloud API client: the handful of
// XML-RPC calls the OpenNebula driver needs, spoken over
// github.com/kolo/xmlrpc (the library goca itself uses).
//
// It mirrors goca (github.com/OpenNebula/one/src/oca/go/src/goca) on
// purpose: the same controller shape (NewController(client).VM(id),
// .VMs(), .Host(id), .Hosts()), the same method names with goca's Context
// variants (InfoContext, InfoExtendedContext, DeployContext,
// ActionContext, MigrateContext, UpdateContext, StatusContext) and the same
// argument order (Deploy(hostID, enforce, dsID); Action(action) sends
// "action name first, then the VM id" as oned expects; Migrate(hostID,
// live, enforce, dsID, migrationType)). goca cannot be fetched here; when it
// can, swapping it in is a one-file change in the driver: its one.go is
// the only file that makes calls or reads documents through this package
// (the other files use only the state numbers below, which are
// OpenNebula's and the same in goca). The schema types are flattened into
// this package (goca keeps them in schemas/vm and schemas/host); their
// field names follow goca's (StateRaw, LCMStateRaw, HistoryRecords, Share).
//
// Every call sends the session string "user:password" first. A response
// [false, message, code, ...] from oned becomes a *ResponseError carrying
// the OpenNebula error code and oned's own message; errors.Is matches it
// against ErrAuthentication, ErrNoExists, ErrAction and the other
// sentinels. Transport trouble and XML-RPC faults become a *ClientError.
//
// Credentials never appear in errors or logs: Credentials.String redacts
// the password.
package oca
