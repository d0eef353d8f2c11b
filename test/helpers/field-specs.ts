// Field definitions (the admin route's FieldSpec) that several test tables share.

/** A select of New and Won. */
export const STAGE_FIELD = {
  label: 'Stage',
  type: 'select',
  options: [
    { label: 'New', value: 'new' },
    { label: 'Won', value: 'won' },
  ],
};

/** A multi_select of VIP and SMB. */
export const TAGS_FIELD = {
  label: 'Tags',
  type: 'multi_select',
  options: [
    { label: 'VIP', value: 'vip' },
    { label: 'SMB', value: 'smb' },
  ],
};
