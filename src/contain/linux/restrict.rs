//! The last steps before the command runs: Landlock (where it may read and write) and seccomp
//! (which system calls it may make), both inherited by every child.

use super::mounts::HOME_COPIED;
use crate::contain::plan::{DEVICES, Fence};
use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus, Scope, path_beneath_rules,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// Reads everywhere but the devices (only those of [`DEVICES`]); writes only in the project
/// and the plan's writable places; no signals to or abstract sockets of processes outside.
pub(super) fn landlock(fence: &Fence) -> Result<(), String> {
    let abi = ABI::V6;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::ReadFile | AccessFs::ReadDir | AccessFs::Execute;
    // Never a device node made, anywhere (a disk's node made in the project would be a way
    // round every fence).
    let write = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let mut tops: Vec<PathBuf> = std::fs::read_dir("/")
        .map_err(|e| format!("reading /: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != Path::new("/dev"))
        .collect();
    tops.sort();
    let device_files: Vec<&Path> = DEVICES.iter().map(Path::new).collect();
    let mut writable: Vec<&Path> = fence.writable.iter().map(PathBuf::as_path).collect();
    // The run's own copies of the package stores (their writes land in its private /tmp).
    writable.extend(fence.stores.iter().map(PathBuf::as_path));
    writable.push(&fence.project);
    // The home's copy: what the run writes there is gone when it ends.
    if HOME_COPIED.load(Ordering::Relaxed)
        && let Some(home) = &fence.scratch_home
    {
        writable.push(home);
    }
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(|e| e.to_string())?
        .scope(Scope::from_all(abi))
        .map_err(|e| e.to_string())?
        .create()
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(&tops, read))
        .map_err(|e| e.to_string())?
        // Every folder may be listed, `/` itself too (getcwd walks up through `..` when a path
        // is too long); what a folder holds is read only where the rules above allow.
        .add_rules(path_beneath_rules([Path::new("/")], AccessFs::ReadDir))
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(&device_files, read | write))
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(&writable, read | write))
        .map_err(|e| e.to_string())?;
    let status = created.restrict_self().map_err(|e| e.to_string())?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("not enforced by this kernel".into());
    }
    Ok(())
}

/// System calls refused inside the fence (EPERM): new namespaces, mounts, the kernel keyring,
/// io_uring (whose operations seccomp cannot see), modules, kexec, handles that bypass paths.
pub(super) fn seccomp() -> Result<(), String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };
    use std::collections::BTreeMap;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let always = [
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_userfaultfd,
        libc::SYS_open_by_handle_at,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_mount_setattr,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_iopl,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_ioperm,
    ];
    for nr in always {
        rules.insert(nr, Vec::new());
    }
    // clone with any namespace flag; clone3 (whose flags seccomp cannot read) is refused as
    // unknown, and the C library falls back to clone.
    let namespaces = [
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWCGROUP,
    ];
    let mut clone_rules = Vec::new();
    for flag in namespaces {
        let flag = flag as u64;
        let cond = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(flag),
            flag,
        )
        .map_err(|e| e.to_string())?;
        clone_rules.push(SeccompRule::new(vec![cond]).map_err(|e| e.to_string())?);
    }
    rules.insert(libc::SYS_clone, clone_rules);
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let mut program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    // clone3 → ENOSYS, put first: the C library then uses clone, which the rules above read.
    let clone3: BpfProgram = SeccompFilter::new(
        [(libc::SYS_clone3, Vec::new())].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        std::env::consts::ARCH
            .try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())?,
    )
    .map_err(|e| e.to_string())?
    .try_into()
    .map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter(&clone3).map_err(|e| e.to_string())?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())?;
    program.clear();
    Ok(())
}
