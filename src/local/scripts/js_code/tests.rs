use super::reads;

#[test]
fn loading_and_printing_is_the_projects_code() {
    for c in [
        "require('sharp'); console.log('SHARP_OK')",
        "console.log(process.version)",
        "const a = require('firebase-admin'); console.log(typeof a.credential, typeof a.initializeApp)",
        "const {cert, initializeApp} = require('firebase-admin/app'); console.log(typeof cert, typeof initializeApp)",
        "console.log(require('crypto').randomBytes(48).toString('base64url'))",
        "const p=require('./package.json'); console.log(JSON.stringify({main:p.main, module:p.module, exports:p.exports, name:p.name},null,2))",
        "const d=require('fs').readFileSync(0,'utf8');const j=JSON.parse(d);console.log(j.version)",
        "const fs=require('fs'); const b=fs.readFileSync('assets/icon.png'); console.log(b.readUInt32BE(16)+'x'+b.readUInt32BE(20));",
        "const p=require('./package.json'); const l=require('./package-lock.json'); console.log('lock:', !!l.packages['node_modules/x']); console.log('node:', process.version)",
        "const d = require('./src/data/git-log.json'); console.log('总条数:', d.length)",
        "console.log(Bun.version)",
        "const {getAuth} = require('firebase-admin/auth'); console.log(typeof getAuth)",
    ] {
        assert!(reads(c).is_some(), "{c}");
    }
    assert_eq!(
        reads("const fs=require('fs'); console.log(fs.readFileSync('a.png').length)"),
        Some(vec!["a.png".to_string()])
    );
}

#[test]
fn anything_else_is_code() {
    for c in [
        "require('child_process').execSync('id')",
        "const cp = require('child_process'); cp.exec('id')",
        "console.log(process.env)",
        "console.log(process.env.GITHUB_TOKEN)",
        "require('dotenv').config()",
        "import('x').then(m => m)",
        "[1].forEach(p => console.log(p))",
        "console.log(`${1}`)",
        "eval('1')",
        "console.log(''.constructor.constructor('return process')())",
        "const fs = require('fs'); fs.writeFileSync('x', 'y')",
        "require('fs').rmSync('x', {recursive: true})",
        "const q = require('qrcode'); const r = q.create('t')",
        "const a = require('x'); a.b()",
        "fetch('https://x.example')",
        "console.log(require(name))",
        "const x = require('x'); console.log({k: x}.k.run())",
        "process.exit(1)",
        "const s = require('./settings'); console.log(s.apiToken)",
        "const {apiToken} = require('./settings'); console.log(apiToken)",
        "const fs=require('fs'); fs.readFileSync(name)",
    ] {
        assert!(reads(c).is_none(), "{c}");
    }
}
