//! PowerShell typed into the Bash tool (`Get-ChildItem -Path src -Recurse | Select-Object
//! FullName`). Agents on Windows write it there, and people approve it. Where the tool's shell
//! is Git Bash, a cmdlet's name (`Verb-Noun` with an approved verb) is no program: that command
//! fails and does nothing, and the rest runs as Bash. Where the shell is PowerShell (some agents
//! on Windows), the whole text is PowerShell. So the text is read both ways and the worse
//! decision stands: the Bash reading without the cmdlets, and the PowerShell reading of it all.
//! A function defined in the text may carry a cmdlet's name, so then only the Bash reading,
//! cmdlets and all, is made.

use crate::local::shell::{self, Analysis};

/// The two readings of a Bash command whose commands include a cmdlet run by its bare name:
/// the Bash one without those commands (None when nothing is left), and the PowerShell one.
/// `has_spec` says whether a name is a program sentinel knows (then it is that program).
pub fn readings(
    command: &str,
    bash: &Analysis,
    has_spec: impl Fn(&str) -> bool,
) -> Option<(Option<Analysis>, Analysis)> {
    if bash.parse_error.is_some() || bash.functions_defined {
        return None;
    }
    let is_cmdlet = |c: &shell::SimpleCommand| {
        c.name_dir.is_none()
            && c.argv.first().is_some_and(|w| w.is_literal())
            && shell::is_cmdlet_name(c.name())
            && !has_spec(c.name())
    };
    if !bash.commands.iter().any(is_cmdlet) {
        return None;
    }
    let mut rest = bash.clone();
    rest.commands.retain(|c| !is_cmdlet(c));
    let rest = (!rest.commands.is_empty()).then_some(rest);
    Some((rest, shell::analyse_powershell(command)))
}
