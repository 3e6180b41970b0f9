//! A shell, or `source`, fed a script through a process substitution whose output is known:
//! `bash <(echo 'rm -rf ~')`, `source <(printf '%s' "$s")`. The output is walked as the script
//! it is, one level deeper; the command stands as written too.

use super::*;

impl Walker {
    /// Walks the script a shell or `source` reads from `<( )`, when its text is known.
    pub(super) fn fed(&mut self, argv: &[Word]) {
        let Some(name) = argv.first() else {
            return;
        };
        let reads_script =
            SHELLS.contains(&name.text.as_str()) || matches!(name.text.as_str(), "source" | ".");
        if !reads_script {
            return;
        }
        // The first word that is not an option is the script.
        let Some(script) = argv[1..].iter().find(|w| !w.text.starts_with('-')) else {
            return;
        };
        if script.text.starts_with("<(")
            && let Some(text) = script.value.clone()
        {
            let label = format!("{} <( )", name.text);
            self.nested(&text, &label);
        }
    }
}
