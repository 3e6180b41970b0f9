//! `yarn eslint .`, `pnpm build`, `bun tsc --noEmit`: a package manager given a name that is not
//! one of its own commands runs the project's `package.json` script of that name or, when there
//! is none, a program its dependencies installed (`node_modules/.bin`). The two are told apart
//! by the `package.json` in the directory it runs in:
//!
//! - a script is the project's own tooling, and the words after its name are passed to it (as
//!   `npm run NAME -- …`); a script whose name says it deploys or publishes is not routine;
//! - a program is judged by its own spec, as `npx` is (`yarn prettier --write /etc/x` is
//!   `prettier --write /etc/x`); a program sentinel has no spec for is uncertain
//!   (`yarn rimraf ~` deletes the home directory);
//! - with no readable `package.json` a name is only judged as a program with a spec.
//!
//! The package manager's pattern section says it does this (`bins = true` on `["yarn *"]`).

use crate::decision::effect::Effect;
use crate::local::paths::fs::Fs;
use crate::local::spec::effects::Effects;
use crate::local::spec::options::{self, Reading};
use crate::local::spec::{Kind, Specs};
use crate::shell::{Cwd, SimpleCommand, Word};
use std::path::Path;

/// What a package manager runs for a name that is not one of its commands.
pub enum Run {
    /// The project's script: judged from these effects (the project's tooling, the task name,
    /// the directories it changes into).
    Script(Effects),
    /// A dependency's program with a spec: judged as that command.
    Program(SimpleCommand),
    /// Neither can be told: why.
    Unknown(String),
}

/// What `cmd` runs when it is a package manager given a script or program name; None for any
/// other command. `cwd` is the directory it starts in, when known.
pub fn run_of(
    cmd: &SimpleCommand,
    specs: &Specs,
    fs: &dyn Fs,
    cwd: Option<&Path>,
    home: Option<&Path>,
) -> Option<Run> {
    if cmd.argv.len() < 2 || !cmd.argv[0].is_literal() {
        return None;
    }
    // Cheap first: only a program with a `bins` pattern section goes on to a full reading
    // (found by name, so no other program's spec is parsed here).
    specs.bins_section(&cmd.argv[0].text)?;
    let reading = options::read(&cmd.argv, specs)?;
    let spec = reading.spec();
    if !spec.bins || reading.subcommand_at == 0 {
        return None;
    }
    let at = reading.subcommand_at;
    let name = &cmd.argv[at];
    let dirs = dirs(&reading);
    let base = match (&cmd.cwd, cwd) {
        (Cwd::Unknown, _) | (_, None) => None,
        (_, Some(c)) => Some(c.to_path_buf()),
    };
    let dir = dirs.iter().try_fold(base, |dir, d| {
        let dir = dir?;
        Some(crate::paths::resolve(d.known_value()?, &dir, home).map(|p| fs.real_path(&p)))
    });
    let scripts = dir.flatten().and_then(|d| fs.package_scripts(&d));
    if scripts.as_ref().is_some_and(|s| s.contains(&name.text)) {
        return Some(Run::Script(Effects {
            list: vec![Effect::RunProject, Effect::Task { name: name.clone() }],
            dirs,
            spec: Some(spec.rule.clone()),
            known: true,
        }));
    }
    if specs.program(&name.text).is_some() {
        let mut inner = cmd.clone();
        inner.argv = cmd.argv[at..].to_vec();
        inner.via.push(cmd.argv[0].text.clone());
        if !inner_dirs_known(&reading) {
            inner.cwd = Cwd::Unknown;
        }
        return Some(Run::Program(inner));
    }
    Some(Run::Unknown(match scripts {
        Some(_) => format!(
            "`{}` is not a script of the project's package.json: it runs a program of a dependency that sentinel has no spec for",
            name.text
        ),
        None => format!(
            "sentinel cannot read a package.json to tell whether `{}` is a project script or a dependency's program",
            name.text
        ),
    }))
}

/// The directories the package manager changes into first (`--cwd DIR`, `-C DIR`, `--dir`).
fn dirs(r: &Reading) -> Vec<Word> {
    r.values
        .iter()
        .filter(|v| v.kind == Kind::Cwd)
        .map(|v| v.word.clone())
        .collect()
}

/// A program run after `--cwd DIR` reads its relative paths from DIR, which the inner command
/// does not know: its cwd becomes unknown then.
fn inner_dirs_known(r: &Reading) -> bool {
    !r.values.iter().any(|v| v.kind == Kind::Cwd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::paths::fs::LexicalFs;

    fn cmd(text: &str) -> SimpleCommand {
        crate::shell::analyse(text).commands.remove(0)
    }

    #[test]
    fn a_program_with_a_spec_is_judged_as_that_program() {
        let specs = Specs::bundled();
        let c = cmd("yarn tsc --noEmit");
        match run_of(&c, &specs, &LexicalFs, Some(Path::new("/p")), None) {
            Some(Run::Program(inner)) => {
                assert_eq!(inner.text(), "tsc --noEmit");
                assert_eq!(inner.via, vec!["yarn".to_string()]);
            }
            _ => panic!("yarn tsc is tsc"),
        }
    }

    #[test]
    fn a_name_without_spec_or_manifest_is_unknown() {
        let specs = Specs::bundled();
        let c = cmd("pnpm rimraf /home/dev");
        assert!(matches!(
            run_of(&c, &specs, &LexicalFs, Some(Path::new("/p")), None),
            Some(Run::Unknown(_))
        ));
    }

    #[test]
    fn own_commands_are_not_names() {
        let specs = Specs::bundled();
        for c in [
            "yarn install",
            "pnpm test",
            "bun test",
            "git status",
            "ls -la",
        ] {
            assert!(
                run_of(&cmd(c), &specs, &LexicalFs, Some(Path::new("/p")), None).is_none(),
                "{c}"
            );
        }
    }
}
