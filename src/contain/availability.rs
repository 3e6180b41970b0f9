//! Whether this machine can fence a run: Landlock in the kernel, and user namespaces a process
//! may create (for the mounts that hide credentials and the network of its own).

/// What containment can do here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    /// Landlock at this ABI version, and user namespaces.
    Available { landlock_abi: i32 },
    /// Why not, in one line.
    Unavailable(String),
}

impl Availability {
    pub fn is_available(&self) -> bool {
        matches!(self, Availability::Available { .. })
    }
}

/// The Landlock ABI the fence needs at least: 3 handles truncation, so that a file outside the
/// writable places cannot be emptied through `O_TRUNC`.
pub const MIN_LANDLOCK_ABI: i32 = 3;

/// Asks the kernel (a system call and two small `/proc` reads; no process is started).
#[cfg(target_os = "linux")]
pub fn availability() -> Availability {
    // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) only reports.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    } as i32;
    if abi < 1 {
        return Availability::Unavailable(
            "the kernel has no Landlock (Linux 5.13 or later, with landlock in the `lsm=` list)"
                .into(),
        );
    }
    if abi < MIN_LANDLOCK_ABI {
        return Availability::Unavailable(format!(
            "the kernel's Landlock is ABI {abi}; containment needs {MIN_LANDLOCK_ABI} (Linux 6.2 or later)"
        ));
    }
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
    };
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return Availability::Unavailable(
            "user namespaces are switched off (user.max_user_namespaces = 0)".into(),
        );
    }
    let root = crate::contain::sys::geteuid() == 0;
    if !root {
        if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
            return Availability::Unavailable(
                "unprivileged user namespaces are switched off (kernel.unprivileged_userns_clone = 0)"
                    .into(),
            );
        }
        if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
            return Availability::Unavailable(
                "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)"
                    .into(),
            );
        }
    }
    Availability::Available { landlock_abi: abi }
}

/// Not Linux: the macOS profile (`seatbelt`) is written but not yet proven, so not used.
#[cfg(not(target_os = "linux"))]
pub fn availability() -> Availability {
    Availability::Unavailable(if cfg!(target_os = "macos") {
        "containment on macOS (a Seatbelt profile) is not yet proven: sentinel does not use it"
            .into()
    } else {
        "containment is built for Linux only".into()
    })
}
