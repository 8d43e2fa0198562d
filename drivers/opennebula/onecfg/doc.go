// Package onecfg holds the OpenNebula driver's configuration (Config,
// its defaults and Validate), so that the configuration loader (package
// config, shared by borad and bora config check) validates the
// driver.opennebula section without importing the driver and its
// XML-RPC client. The driver (package opennebula) takes this Config.
//
// It imports nothing from bora but fielderr.
package onecfg
