# Sourced by check.sh and stand-in-bases.sh: podman's settings in a folder of the script's own, so nothing under /etc
# changes. What a machine like this needs: runc (crun refuses hybrid cgroups), cgroupfs, a file events log, and
# ulimits below the host's (root here lacks CAP_SYS_RESOURCE, so podman's default nofile cannot be set).
PAYSYNC_IMAGE_HOME=${PAYSYNC_IMAGE_HOME:-/var/tmp/paysync-image}
mkdir -p "$PAYSYNC_IMAGE_HOME/conf" "$PAYSYNC_IMAGE_HOME/storage" "$PAYSYNC_IMAGE_HOME/run"
cat > "$PAYSYNC_IMAGE_HOME/conf/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$PAYSYNC_IMAGE_HOME/run/events.log"
CONF
cat > "$PAYSYNC_IMAGE_HOME/conf/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$PAYSYNC_IMAGE_HOME/storage"
runroot = "$PAYSYNC_IMAGE_HOME/run"
CONF
export CONTAINERS_CONF="$PAYSYNC_IMAGE_HOME/conf/containers.conf"
export CONTAINERS_STORAGE_CONF="$PAYSYNC_IMAGE_HOME/conf/storage.conf"
