; The Windows installer, built on Linux with Debian's nsis: packaging/windows/build.sh.
; Per-user: no admin rights, everything under the user's LocalAppData, HKCU only — the same
; user whose named pipe the hook talks to. The uninstaller first runs `vults-app --uninstall`
; (takes Vults' hooks out of every agent's settings and removes start at login), then the files.
; Defines (makensis -D…): VERSION, SRC (folder with vults-app.exe and vults-hook.exe), ICON
; (vults.ico), OUT (the setup .exe), and optionally COMPRESSOR (lzma | zlib).
; The app is 64-bit only: a 64-bit installer (also what 64-bit-only Wine runs).
Target amd64-unicode
!ifndef COMPRESSOR
  !define COMPRESSOR lzma
!endif
SetCompressor /SOLID ${COMPRESSOR}
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Vults"

Name "Vults"
OutFile "${OUT}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\Vults"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"
Icon "${ICON}"
UninstallIcon "${ICON}"
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "Vults"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "Vults installer"
VIAddVersionKey "LegalCopyright" "MIT OR Apache-2.0"

Page directory
Page instfiles
UninstPage uninstConfirm
UninstPage instfiles

Section "Vults"
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  File "${SRC}/vults-app.exe"
  File "${SRC}/vults-hook.exe"
  File "/oname=vults.ico" "${ICON}"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortCut "$SMPROGRAMS\Vults.lnk" "$INSTDIR\vults-app.exe" "" "$INSTDIR\vults.ico"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "Vults"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "Vults developers"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\vults.ico"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  ; Vults' own undo: exactly what it added to the agents' settings, and the Run key.
  ExecWait '"$INSTDIR\vults-app.exe" --uninstall'
  Delete "$INSTDIR\vults-app.exe"
  Delete "$INSTDIR\vults-hook.exe"
  Delete "$INSTDIR\vults.ico"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\Vults.lnk"
  DeleteRegKey HKCU "${UNINST_KEY}"
SectionEnd
