; Inno Setup script for linkvet's Windows installer (Inno Setup 6). packaging/build.py compiles it after the
; PyInstaller one-folder build, passing where things are:
;   iscc /DAppVersion=0.1.0 /DDistDir=<dist\linkvet> /DIconFile=<linkvet.ico> /DOutputDir=<dist> linkvet.iss
; Per-user by default (no administrator rights: Program Files only if the user chooses "for all users"),
; with a Start-menu entry for the windowed program and an uninstaller. The command line is installed too
; ({app}\linkvet.exe) but not put on PATH.

#ifndef AppVersion
  #error Pass /DAppVersion=X.Y.Z (packaging/build.py does)
#endif
#ifndef DistDir
  #error Pass /DDistDir=<the PyInstaller folder, dist\linkvet> (packaging/build.py does)
#endif
#ifndef IconFile
  #define IconFile "linkvet.ico"
#endif
#ifndef OutputDir
  #define OutputDir "."
#endif

[Setup]
; The AppId identifies linkvet to Windows' uninstaller across versions: never change it.
AppId={{A3FA10EC-7592-45E8-BD31-E7D68AD04967}
AppName=linkvet
AppVersion={#AppVersion}
AppVerName=linkvet {#AppVersion}
AppPublisher=linkvet contributors
DefaultDirName={autopf}\linkvet
DefaultGroupName=linkvet
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#OutputDir}
OutputBaseFilename=linkvet-{#AppVersion}-windows-x64-setup
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\linkvet-gui.exe
UninstallDisplayName=linkvet {#AppVersion}
Compression=lzma2
SolidCompression=yes
WizardStyle=modern

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#DistDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\linkvet"; Filename: "{app}\linkvet-gui.exe"; WorkingDir: "{app}"; Comment: "Measure the line to GPU-hosting regions"
Name: "{group}\{cm:UninstallProgram,linkvet}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\linkvet"; Filename: "{app}\linkvet-gui.exe"; WorkingDir: "{app}"; Tasks: desktopicon

[Run]
Filename: "{app}\linkvet-gui.exe"; Description: "{cm:LaunchProgram,linkvet}"; Flags: nowait postinstall skipifsilent
