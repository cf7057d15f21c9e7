{{/*
The storage backend's part of the pods. With storage.backend postgres, everything durable is in the database,
so no pod mounts a shared volume, and the processes that open the database (server, scheduler, coordinator)
get its connection from the operator's Secrets. Workers reach the control plane only through the
coordinator: they get the backend's name but no credentials, which keeps the database out of reach of the
steps they run.
*/}}

{{- define "dagu.postgres" -}}
{{- if eq .Values.storage.backend "postgres" }}true{{ end }}
{{- end }}

{{/* Where the password Secret is mounted; DAGU_POSTGRES_PASSWORD_FILE names the file in it. */}}
{{- define "dagu.postgresPasswordDir" -}}/etc/dagu/postgres{{- end }}

{{/*
Stops the render with one line naming the value to set, rather than pods that crash at start. The chart never
takes a password as a value, so one written into storage.postgres.url is refused too.
*/}}
{{- define "dagu.checkStorage" -}}
{{- if include "dagu.postgres" . }}
{{- $pg := .Values.storage.postgres }}
{{- if not (or $pg.existingSecret $pg.passwordSecret) }}
{{- fail "storage.backend is postgres: set storage.postgres.existingSecret (a Secret holding the connection URL) or storage.postgres.passwordSecret (a Secret holding the password, with storage.postgres.url)" }}
{{- end }}
{{- if and $pg.existingSecret $pg.url }}
{{- fail "storage.postgres.url and storage.postgres.existingSecret both give the connection URL: set one of them" }}
{{- end }}
{{- if not (or $pg.existingSecret $pg.url) }}
{{- fail "storage.postgres.passwordSecret needs storage.postgres.url: the connection URL without its password" }}
{{- end }}
{{- if regexMatch "^[a-zA-Z]+://[^/@]*:[^/@]*@" $pg.url }}
{{- fail "storage.postgres.url contains a password: remove it and put the password into the Secret named by storage.postgres.passwordSecret" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The connection settings of a component that opens the database (nothing with the file backend). */}}
{{- define "dagu.postgresEnv" -}}
{{- if include "dagu.postgres" . }}
{{- $pg := .Values.storage.postgres }}
- name: DAGU_POSTGRES_URL
{{- if $pg.existingSecret }}
  valueFrom:
    secretKeyRef:
      name: {{ $pg.existingSecret }}
      key: {{ $pg.existingSecretKey }}
{{- else }}
  value: {{ $pg.url | quote }}
{{- end }}
{{- if $pg.passwordSecret }}
- name: DAGU_POSTGRES_PASSWORD_FILE
  value: {{ include "dagu.postgresPasswordDir" . }}/password
{{- end }}
- name: DAGU_POSTGRES_SCHEMA
  value: {{ $pg.schema | quote }}
- name: DAGU_POSTGRES_POOL_SIZE
  value: {{ $pg.poolSize | quote }}
{{- end }}
{{- end }}

{{- define "dagu.postgresVolumeMounts" -}}
{{- if and (include "dagu.postgres" .) .Values.storage.postgres.passwordSecret }}
- name: postgres-password
  mountPath: {{ include "dagu.postgresPasswordDir" . }}
  readOnly: true
{{- end }}
{{- end }}

{{/* Only the password's key, under a fixed name, whatever else the Secret holds. */}}
{{- define "dagu.postgresVolumes" -}}
{{- if and (include "dagu.postgres" .) .Values.storage.postgres.passwordSecret }}
- name: postgres-password
  secret:
    secretName: {{ .Values.storage.postgres.passwordSecret }}
    items:
      - key: {{ .Values.storage.postgres.passwordSecretKey }}
        path: password
{{- end }}
{{- end }}
